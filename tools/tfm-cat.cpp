// tfm-cat: concatenate tensor streams, convert between .npy and text, or list what a
// stream holds.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/stream.hpp"

namespace {

// Copies every record of one input to the writer (or describes it); returns records seen.
std::size_t cat_one(tfm::Input& in, tfm::TensorWriter* writer, tfm::Output& out, const std::string& label) {
    tfm::TensorReader reader(in);
    for (;;) {
        std::optional<tfm::Record> rec;
        try {
            rec = reader.next();
        } catch (const tfm::BrokenPipe&) {
            throw;
        } catch (const tfm::Error& e) {
            throw tfm::Error(label.empty() ? e.what() : label + ": " + e.what());
        }
        if (!rec) return reader.records_read();
        if (writer) {
            writer->write(*rec);
            continue;
        }
        std::string line = (label.empty() ? "" : label + ": ") + "record " + std::to_string(reader.records_read()) + ": " +
                           (std::holds_alternative<tfm::IdArray>(*rec) ? "int64 " : "float32 ") +
                           std::visit([](const auto& a) { return tfm::shape_of(a); }, *rec) + "\n";
        out.write(line);
    }
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-cat", "Concatenate tensor streams; convert between .npy and text.",
        "  tfm-cat a.npy b.npy > ab.npy           # one stream after the other\n"
        "  tfm-posenc -n 4 -d 8 | tfm-cat -t      # any stream as text, for awk and gnuplot\n"
        "  tfm-cat < matrix.txt > matrix.npy       # text to .npy (or back with -t)\n"
        "  tfm-cat --info weights.npy              # dtype and shape of each record\n");
    std::vector<std::string> files;
    bool info = false;
    tool.app().add_option("files", files, "Input files ('-' or none: stdin)");
    tool.rename_option("-i", "--info");
    tool.app().add_flag("--info", info, "Print one line per record (dtype and shape) instead of the data");
    tool.add_format_flags();
    return tool.run(argc, argv, [&] {
        if (files.empty()) files.push_back("-");
        tfm::Output out(STDOUT_FILENO);
        std::optional<tfm::TensorWriter> writer;
        if (!info) writer.emplace(out, tool.output_format());
        for (const std::string& f : files) {
            if (f == "-") {
                tfm::Input in(STDIN_FILENO);
                cat_one(in, writer ? &*writer : nullptr, out, files.size() > 1 ? "stdin" : "");
                continue;
            }
            int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) throw tfm::Error(f + ": " + std::strerror(errno));
            tfm::Input in(fd, f);
            try {
                cat_one(in, writer ? &*writer : nullptr, out, f);
            } catch (...) {
                ::close(fd);
                throw;
            }
            ::close(fd);
        }
    });
}
