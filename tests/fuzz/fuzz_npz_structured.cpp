// The .npz reader on archives that are well-formed zips (stored or deflated) of .npy entries
// whose headers the fuzzer writes field by field (tests/helpers/craft_checkpoint.hpp): dtypes,
// Fortran order, shapes with the values where size arithmetic breaks (fuzz_structured.hpp,
// also as Python integers past 2^64), header versions and lengths, and data that is short,
// long or exact. Every array converts or says why not; anything else is a tfm::Error.
#include <cstdint>
#include <string>

#include "../helpers/craft_checkpoint.hpp"
#include "fuzz_structured.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/npz.hpp"

namespace {

std::string header(FuzzedDataProvider& fdp, std::size_t* data_bytes) {
    static const char* const descrs[] = {"<f4", "<f2", "<f8", "|i1", "|u1", "<i4", "<i8", "|b1", ">f4", "=f4", "|S1", "<c8"};
    static const std::size_t items[] = {4, 2, 8, 1, 1, 4, 8, 1, 4, 4, 1, 8};
    if (fdp.ConsumeIntegralInRange(0, 15) == 0) {  // free text
        *data_bytes = fdp.ConsumeIntegralInRange<std::size_t>(0, 64);
        return fdp.ConsumeRandomLengthString(256);
    }
    const std::size_t d = fdp.ConsumeIntegralInRange<std::size_t>(0, 11);
    std::string shape = "(";
    const std::size_t rank = fdp.ConsumeIntegralInRange<std::size_t>(0, 4);
    std::size_t numel = 1;
    bool small = true;
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t v = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<std::int64_t>(0, 8) : tfm_fuzz::interesting_int(fdp);
        if (fdp.ConsumeIntegralInRange(0, 15) == 0) shape += "18446744073709551617";  // 2^64 + 1
        else shape += std::to_string(v);
        shape += rank == 1 || i + 1 < rank ? ", " : "";
        if (v < 0 || v > 64) small = false;
        else numel *= std::size_t(v);
    }
    shape += ")";
    *data_bytes = small && numel <= 4096 ? numel * items[d] : fdp.ConsumeIntegralInRange<std::size_t>(0, 256);
    if (fdp.ConsumeIntegralInRange(0, 3) == 0) *data_bytes = fdp.ConsumeIntegralInRange<std::size_t>(0, 256);
    const char* fortran = fdp.ConsumeIntegralInRange(0, 7) == 0 ? "True" : "False";
    return std::string("{'descr': '") + descrs[d] + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    static const char* const members[] = {"a.npy", "b.npy", "a.npy", "x.txt", ".npy", "dir/c.npy"};
    std::vector<tfm_craft::NpyEntry> entries;
    const std::size_t n = fdp.ConsumeIntegralInRange<std::size_t>(1, 3);
    for (std::size_t i = 0; i < n; ++i) {
        tfm_craft::NpyEntry e;
        e.member = fdp.PickValueInArray(members);
        std::size_t bytes = 0;
        e.header = header(fdp, &bytes);
        e.version = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(0, 255) : fdp.ConsumeIntegralInRange(1, 3);
        e.data = tfm_fuzz::some_bytes(fdp, bytes);
        e.deflate = fdp.ConsumeBool();
        entries.push_back(e);
    }
    try {
        const tfm::Npz npz = tfm::Npz::from_bytes(tfm_craft::npz_bytes(entries), "fuzz.npz");
        for (const std::string& name : npz.names()) {
            try {
                const std::string dtype = npz.dtype(name);
                if (dtype == "I8" || dtype == "U8") (void)npz.text(name);
                else (void)npz.get(name);
            } catch (const tfm::Error&) {
            }
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
