#include "tfm/io/json.hpp"

#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"

namespace tfm {

Json parse_json(std::string_view text, const std::string& what) {
    // The callback sees the depth of every event; refusing deep input here keeps every later
    // walk of the value (destruction, dump, our own loops) shallow.
    const Json::parser_callback_t bound = [&](int depth, Json::parse_event_t, Json&) {
        if (depth > int(kMaxJsonDepth))
            throw Error(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), bound);
    } catch (const Json::exception& e) {
        // The parser's message quotes the token it stopped at, which may be huge: cut it.
        std::string msg = e.what();
        if (msg.size() > 160) msg = msg.substr(0, 160) + "...";
        for (char& ch : msg)
            if (static_cast<unsigned char>(ch) < 32 || static_cast<unsigned char>(ch) >= 127) ch = '?';
        throw Error(what + ": malformed JSON: " + msg);
    }
}

Json read_json_file(const std::string& path, std::size_t max_bytes) {
    return parse_json(read_regular_file(path, max_bytes), path);
}

std::string json_excerpt(const Json& v) {
    constexpr std::size_t kShown = 40;
    switch (v.type()) {
        case Json::value_t::array: return "an array of " + std::to_string(v.size());
        case Json::value_t::object: return "an object of " + std::to_string(v.size()) + " keys";
        case Json::value_t::string: {
            const std::string& s = v.get_ref<const std::string&>();
            std::string shown;
            for (char c : s.substr(0, kShown)) shown += (static_cast<unsigned char>(c) < 32 || c == 127) ? '?' : c;
            return "\"" + shown + (s.size() > kShown ? "...\"" : "\"");
        }
        default: return v.dump();  // a scalar: short
    }
}

namespace {

const Json& member(const Json& obj, const std::string& key, const std::string& where) {
    if (!obj.is_object() || !obj.contains(key)) throw Error(where + ": missing key '" + key + "'");
    return obj.at(key);
}

Error bad_value(const std::string& where, const std::string& key, const std::string& want, const Json& v) {
    return Error(where + ": key '" + key + "' must be " + want + ", got " + json_excerpt(v));
}

}  // namespace

std::int64_t json_int(const Json& obj, const std::string& key, std::int64_t lo, std::int64_t hi,
                      const std::string& where) {
    const Json& v = member(obj, key, where);
    const std::string want = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (v.is_number_unsigned()) {
        const std::uint64_t u = v.get<std::uint64_t>();
        if (hi < 0 || u > std::uint64_t(hi) || (lo > 0 && u < std::uint64_t(lo))) throw bad_value(where, key, want, v);
        return std::int64_t(u);
    }
    if (!v.is_number_integer()) throw bad_value(where, key, want, v);
    const std::int64_t i = v.get<std::int64_t>();
    if (i < lo || i > hi) throw bad_value(where, key, want, v);
    return i;
}

double json_number(const Json& obj, const std::string& key, double lo, double hi, const std::string& where) {
    const Json& v = member(obj, key, where);
    if (!v.is_number()) throw bad_value(where, key, "a number", v);
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "a number from %g to %g", lo, hi);
        throw bad_value(where, key, buf, v);
    }
    return d;
}

bool json_bool(const Json& obj, const std::string& key, const std::string& where) {
    const Json& v = member(obj, key, where);
    if (!v.is_boolean()) throw bad_value(where, key, "true or false", v);
    return v.get<bool>();
}

std::string json_string(const Json& obj, const std::string& key, const std::string& where) {
    const Json& v = member(obj, key, where);
    if (!v.is_string()) throw bad_value(where, key, "a string", v);
    return v.get<std::string>();
}

bool json_has(const Json& obj, const std::string& key) {
    return obj.is_object() && obj.contains(key) && !obj.at(key).is_null();
}

}  // namespace tfm
