// The PyTorch checkpoint reader on checkpoints that are well formed as pickles and zip
// archives (tests/helpers/craft_checkpoint.hpp), in both formats, stored or deflated, with
// storage sizes, legacy views, offsets, shapes, strides and dtypes drawn by the fuzzer
// (fuzz_structured.hpp): byte mutation alone rarely builds a pickle whose arithmetic is wrong
// in the right way. Every tensor that opens converts to float32 or says why not; anything
// else is a tfm::Error. Regression cases of issue 49 are seeds (make_seeds.py).
#include <cstdint>
#include <string>

#include "../helpers/craft_checkpoint.hpp"
#include "fuzz_structured.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/torch_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider fdp(data, size);
    static const char* const types[] = {"FloatStorage", "HalfStorage", "BFloat16Storage", "DoubleStorage",
                                        "LongStorage",  "ByteStorage", "BoolStorage",     "NoSuchStorage"};
    static const std::size_t sizes[] = {4, 2, 2, 8, 8, 1, 1, 4};
    tfm_craft::Checkpoint ck;
    ck.legacy = fdp.ConsumeBool();
    ck.deflate = fdp.ConsumeBool();
    const std::size_t storages = fdp.ConsumeIntegralInRange<std::size_t>(1, 3);
    for (std::size_t i = 0; i < storages; ++i) {
        tfm_craft::Storage st;
        st.key = std::to_string(i);
        const std::size_t type = fdp.ConsumeIntegralInRange<std::size_t>(0, 7);
        st.type = types[type];
        st.numel = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<std::int64_t>(0, 256) : tfm_fuzz::interesting_int(fdp);
        // Mostly the bytes the declaration implies, sometimes a few more or fewer.
        std::size_t n = st.numel >= 0 && st.numel <= 256 ? std::size_t(st.numel) * sizes[type] : 64;
        if (fdp.ConsumeBool()) n = fdp.ConsumeIntegralInRange<std::size_t>(0, 1024);
        st.bytes = tfm_fuzz::some_bytes(fdp, n);
        if (ck.legacy && fdp.ConsumeIntegralInRange(0, 7) == 0) st.stored_numel = tfm_fuzz::interesting_int(fdp);
        ck.storages.push_back(st);
    }
    const std::size_t tensors = fdp.ConsumeIntegralInRange<std::size_t>(1, 3);
    for (std::size_t i = 0; i < tensors; ++i) {
        tfm_craft::Tensor t;
        t.name = "t" + std::to_string(i);
        t.storage = fdp.ConsumeIntegralInRange<std::size_t>(0, storages - 1);
        t.as_parameter = fdp.ConsumeBool();
        if (ck.legacy && fdp.ConsumeBool()) {
            t.has_view = true;
            t.view.key = "v" + std::to_string(i);
            t.view.offset = tfm_fuzz::interesting_int(fdp);
            t.view.size = tfm_fuzz::interesting_int(fdp);
        }
        t.offset = tfm_fuzz::interesting_int(fdp);
        const std::size_t rank = fdp.ConsumeIntegralInRange<std::size_t>(0, 4);
        t.shape = tfm_fuzz::interesting_dims(fdp, rank);
        t.stride = tfm_fuzz::interesting_dims(fdp, fdp.ConsumeIntegralInRange(0, 7) == 0 ? rank + 1 : rank);
        ck.tensors.push_back(t);
    }
    try {
        const tfm::TorchCheckpoint c = tfm::TorchCheckpoint::from_bytes(tfm_craft::torch_bytes(ck), "fuzz.bin");
        for (const std::string& name : c.names()) {
            try {
                (void)c.get(name);
            } catch (const tfm::Error&) {  // an integer tensor, say
            }
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
