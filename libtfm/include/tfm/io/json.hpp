// Reading JSON that comes from files we do not control (config.json, vocab.json, safetensors
// headers, state.json): nesting depth and size bounded while parsing, and values quoted in
// messages without re-serialising what may be huge or deep. Typed getters refuse what does
// not fit (2.7 for an integer, 1e20 for an int64) with the key's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tfm {

using Json = nlohmann::json;

constexpr std::size_t kMaxJsonDepth = 64;

// Parses text; deeper nesting than kMaxJsonDepth or malformed text throws Error("what: ...").
Json parse_json(std::string_view text, const std::string& what);
// Reads a regular file of at most max_bytes and parses it; errors name the path.
Json read_json_file(const std::string& path, std::size_t max_bytes = std::size_t(64) << 20);

// A short description of a value for messages: numbers, booleans and short strings as they
// are; long strings cut; arrays and objects by kind and size. Never recursive.
std::string json_excerpt(const Json& v);

// obj[key] as an integer within [lo, hi]; a missing key, a non-integer (2.7, "3", 1e30) or a
// value outside the range throws Error naming `where` and the key.
std::int64_t json_int(const Json& obj, const std::string& key, std::int64_t lo, std::int64_t hi,
                      const std::string& where);
// The same for a finite number within [lo, hi].
double json_number(const Json& obj, const std::string& key, double lo, double hi, const std::string& where);
bool json_bool(const Json& obj, const std::string& key, const std::string& where);
std::string json_string(const Json& obj, const std::string& key, const std::string& where);
// True when obj has key with a non-null value.
bool json_has(const Json& obj, const std::string& key);

}  // namespace tfm
