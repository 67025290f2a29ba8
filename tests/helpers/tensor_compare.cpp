// tensor_compare EXPECTED ACTUAL [--rtol R] [--atol A]: compares two tensor streams record by
// record: same count, same shapes, |a - e| <= atol + rtol |e| everywhere (NaN equals NaN).
// Exit 0 when they match, 1 otherwise (with the first mismatch on stderr). A test helper.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "tfm/base/error.hpp"
#include "tfm/io/stream.hpp"

int main(int argc, char** argv) {
    double rtol = 1e-5, atol = 1e-6;
    std::string files[2];
    int nfiles = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--rtol" && i + 1 < argc) rtol = std::stod(argv[++i]);
        else if (a == "--atol" && i + 1 < argc) atol = std::stod(argv[++i]);
        else if (nfiles < 2) files[nfiles++] = a;
        else { std::fprintf(stderr, "usage: tensor_compare EXPECTED ACTUAL [--rtol R] [--atol A]\n"); return 2; }
    }
    if (nfiles != 2) { std::fprintf(stderr, "usage: tensor_compare EXPECTED ACTUAL [--rtol R] [--atol A]\n"); return 2; }
    try {
        int fds[2];
        for (int f = 0; f < 2; ++f) {
            fds[f] = files[f] == "-" ? 0 : ::open(files[f].c_str(), O_RDONLY);
            if (fds[f] < 0) throw tfm::Error(files[f] + ": " + std::strerror(errno));
        }
        tfm::Input ein(fds[0], files[0]), ain(fds[1], files[1]);
        tfm::TensorReader er(ein), ar(ain);
        for (std::size_t rec = 1;; ++rec) {
            auto e = er.next();
            auto a = ar.next();
            if (!e && !a) break;
            if (!e || !a) {
                std::fprintf(stderr, "record %zu: present only in %s\n", rec, e ? "expected" : "actual");
                return 1;
            }
            tfm::FloatArray ef = tfm::as_float(std::move(*e)), af = tfm::as_float(std::move(*a));
            if (ef.shape() != af.shape()) {
                std::fprintf(stderr, "record %zu: shape %s, expected %s\n", rec, tfm::shape_of(af).c_str(),
                             tfm::shape_of(ef).c_str());
                return 1;
            }
            double worst = 0;
            for (std::size_t i = 0; i < ef.size(); ++i) {
                double x = ef.data()[i], y = af.data()[i];
                if (std::isnan(x) && std::isnan(y)) continue;
                double err = std::fabs(x - y);
                if (!(err <= atol + rtol * std::fabs(x))) {
                    std::fprintf(stderr, "record %zu: element %zu is %.9g, expected %.9g (|diff| %.3g)\n", rec, i, y,
                                 x, err);
                    return 1;
                }
                worst = std::max(worst, err);
            }
            std::printf("record %zu: %s, max |diff| %.3g\n", rec, tfm::shape_of(ef).c_str(), worst);
        }
        return 0;
    } catch (const tfm::Error& e) {
        std::fprintf(stderr, "tensor_compare: %s\n", e.what());
        return 1;
    }
}
