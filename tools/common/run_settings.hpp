// The options of a training run that --resume carries over (batch size, schedule, label
// smoothing, dropout): each is registered with its CLI option, its values are recorded in every
// checkpoint, and a resumed run takes the recorded value of every such option not given again.
// An option given again with another value wins, and the run says so.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tfm::tool {

class RunSettings {
public:
    // app.add_option(flag, var, help) checked by `check`, recorded as flag without its dashes.
    template <class T>
    CLI::Option* add(CLI::App& app, const std::string& flag, T& var, const std::string& help, CLI::Validator check) {
        CLI::Option* o = app.add_option(flag, var, help)->check(check);
        entries_.push_back({o, std::move(check), [&var] { return double(var); },
                            [&var](double v) { var = static_cast<T>(v); }});
        return o;
    }

    // Every registered option's value, by name (for TrainState::settings).
    std::map<std::string, double> record() const;

    // Takes the recorded value of every option the command line did not give; `note` hears of
    // each one given with a value other than the run's. A recorded value its option would refuse
    // is an Error naming `where` (a damaged checkpoint). Names recorded by other versions are
    // ignored.
    void resume(const std::map<std::string, double>& recorded, const std::string& where,
                const std::function<void(const std::string&)>& note);

private:
    struct Entry {
        CLI::Option* option;
        CLI::Validator check;
        std::function<double()> get;
        std::function<void(double)> set;
        std::string name() const;
    };
    std::vector<Entry> entries_;
};

}  // namespace tfm::tool
