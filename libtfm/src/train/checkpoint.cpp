#include "tfm/train/checkpoint.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tfm/io/dir_guard.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/model/parameter_spans.hpp"

namespace tfm {

namespace {

void make_dir(const std::string& path) {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw Error(path + ": cannot create: " + std::strerror(errno));
}

std::vector<std::string> checkpoints(const std::string& model_dir) {
    std::vector<std::string> out;
    if (DIR* d = ::opendir((model_dir + "/checkpoints").c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string name = e->d_name;
            if (name.rfind("step-", 0) == 0 && name.find(".tmp") == std::string::npos) out.push_back(name);
        }
        ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string step_name(std::size_t step) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "step-%010zu", step);
    return buf;
}

}  // namespace

std::string save_checkpoint(const std::string& model_dir, const Model& m, Adam& adam, const TrainState& st,
                            std::size_t keep) {
    make_dir(model_dir + "/checkpoints");
    const std::string final_path = model_dir + "/checkpoints/" + step_name(st.step);
    const std::string tmp = final_path + ".tmp";
    remove_tree(tmp);
    make_dir(tmp);
    save_model(tmp, m);
    std::vector<NamedTensor> moments;
    std::vector<std::string> names;
    visit_parameters(const_cast<Model&>(m), [&](const std::string& name, float*, std::size_t) { names.push_back(name); });
    for (std::size_t i = 0; i < names.size(); ++i) {
        moments.push_back({"m." + names[i], adam.first_moments()[i].data(), {adam.first_moments()[i].size()}});
        moments.push_back({"v." + names[i], adam.second_moments()[i].data(), {adam.second_moments()[i].size()}});
    }
    save_safetensors(tmp + "/optimizer.safetensors", moments);
    nlohmann::json j = {{"step", st.step}, {"epoch", st.epoch}, {"batch_in_epoch", st.batch_in_epoch},
                        {"seed", st.seed}, {"optimizer_steps", adam.steps()}, {"batch_parts", st.batch_parts},
                        {"settings", st.settings}};
    write_file_atomic(tmp + "/state.json", j.dump(2) + "\n");
    remove_tree(final_path);
    if (std::rename(tmp.c_str(), final_path.c_str()) != 0)
        throw Error(final_path + ": cannot rename into place: " + std::strerror(errno));
    save_model(model_dir, m);  // the directory itself stays a usable model
    auto all = checkpoints(model_dir);
    for (std::size_t i = 0; i + keep < all.size(); ++i) remove_tree(model_dir + "/checkpoints/" + all[i]);
    return final_path;
}

std::optional<std::string> latest_checkpoint(const std::string& model_dir) {
    auto all = checkpoints(model_dir);
    if (all.empty()) return std::nullopt;
    return model_dir + "/checkpoints/" + all.back();
}

std::vector<std::string> latest_checkpoints(const std::string& model_dir, std::size_t count) {
    auto all = checkpoints(model_dir);
    std::vector<std::string> out;
    for (std::size_t i = all.size() > count ? all.size() - count : 0; i < all.size(); ++i)
        out.push_back(model_dir + "/checkpoints/" + all[i]);
    return out;
}

Model average_checkpoints(const std::vector<std::string>& paths) {
    if (paths.empty()) throw Error("no checkpoints to average");
    const ModelConfig c = load_config(paths.front() + "/config.json");
    Model sum = load_model_weights(c, SafeTensors::open(paths.front() + "/model.safetensors"));
    for (std::size_t k = 1; k < paths.size(); ++k) {
        if (!same_architecture(load_config(paths[k] + "/config.json"), c))
            throw Error(paths[k] + ": another architecture than " + paths.front());
        Model m = load_model_weights(c, SafeTensors::open(paths[k] + "/model.safetensors"));
        add_parameters(sum, m);
    }
    const float inv = 1.0f / float(paths.size());
    for (auto& [p, n] : parameter_spans(sum))
        for (std::size_t i = 0; i < n; ++i) p[i] *= inv;
    return sum;
}

namespace {

struct StateFile {
    TrainState train;
    std::size_t optimizer_steps = 0;
};

// A checkpoint's state.json, checked.
StateFile read_state(const std::string& path) {
    StateFile out;
    const std::string where = path + "/state.json";
    const Json j = read_json_file(where, std::size_t(1) << 20);
    constexpr std::int64_t kMaxCount = std::int64_t(1) << 53;  // steps, epochs, batches: far beyond any run
    out.train.step = std::size_t(json_int(j, "step", 0, kMaxCount, where));
    out.train.epoch = std::size_t(json_int(j, "epoch", 0, kMaxCount, where));
    out.train.batch_in_epoch = std::size_t(json_int(j, "batch_in_epoch", 0, kMaxCount, where));
    if (!j.contains("seed") || !j.at("seed").is_number_unsigned())
        throw Error(where + ": key 'seed' must be a non-negative integer");
    out.train.seed = j.at("seed").get<std::uint64_t>();
    out.optimizer_steps = std::size_t(json_int(j, "optimizer_steps", 0, kMaxCount, where));
    out.train.batch_parts = j.contains("batch_parts") ? std::size_t(json_int(j, "batch_parts", 0, 1 << 20, where)) : 0;
    if (j.contains("settings")) {
        const Json& s = j.at("settings");
        if (!s.is_object() || s.size() > 64) throw Error(where + ": key 'settings' must be an object of a few numbers");
        for (const auto& [name, value] : s.items()) {
            if (!value.is_number() || !std::isfinite(value.get<double>()))
                throw Error(where + ": setting '" + name + "' must be a finite number");
            out.train.settings[name] = value.get<double>();
        }
    }
    return out;
}

}  // namespace

TrainState load_checkpoint_state(const std::string& path) { return read_state(path).train; }

void load_checkpoint(const std::string& path, Model& m, Adam& adam, TrainState& st) {
    ModelConfig saved = load_config(path + "/config.json");
    if (!same_architecture(saved, m.config))
        throw Error(path + ": the checkpoint is of another architecture (its config.json differs from the model's)");
    Model loaded = load_model_weights(saved, SafeTensors::open(path + "/model.safetensors"));
    m = std::move(loaded);
    SafeTensors opt = SafeTensors::open(path + "/optimizer.safetensors");
    std::vector<std::string> names;
    visit_parameters(m, [&](const std::string& name, float*, std::size_t) { names.push_back(name); });
    for (std::size_t i = 0; i < names.size(); ++i) {
        FloatArray a = opt.get("m." + names[i], {adam.first_moments()[i].size()});
        FloatArray b = opt.get("v." + names[i], {adam.second_moments()[i].size()});
        std::copy(a.begin(), a.end(), adam.first_moments()[i].begin());
        std::copy(b.begin(), b.end(), adam.second_moments()[i].begin());
    }
    const StateFile state = read_state(path);
    st = state.train;
    adam.set_steps(state.optimizer_steps);
}

}  // namespace tfm
