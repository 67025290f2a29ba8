// A restricted unpickler: the subset of Python's pickle (protocols 2 to 5) that torch.save
// writes for a state dict, read into a small tree of values. Nothing is imported or run: a
// GLOBAL becomes a named value, and what calling it (REDUCE, NEWOBJ) means is the caller's
// to decide through a hook that refuses what it does not know. Persistent ids (torch's
// storages) go to another hook. Every count and length is bounded by the input's size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfm::pickle {

struct Value;
using ValuePtr = Value*;  // owned by the Document that made it (cycles are harmless)

struct Value {
    enum class Kind { None, Bool, Int, LongInt, Float, String, Bytes, Tuple, List, Dict, Global, Object };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;                  // String, Bytes; LongInt: its little-endian bytes (more than 8);
                                       // Global: "module.name"; Object: what made it
    std::vector<ValuePtr> items;       // Tuple, List; Dict: key, value, key, value, ...
    std::shared_ptr<void> payload;     // Object: what the caller's hook attached

    bool is(Kind k) const { return kind == k; }
};

// Every value of one unpickling, owned in one place.
class Document {
public:
    ValuePtr make(Value::Kind kind);
    ValuePtr make_int(std::int64_t v);
    ValuePtr make_string(std::string s, Value::Kind kind = Value::Kind::String);
    ValuePtr make_tuple(std::vector<ValuePtr> items);
    ValuePtr make_object(std::string what, std::shared_ptr<void> payload);
    ValuePtr root = nullptr;

private:
    std::vector<std::unique_ptr<Value>> values_;
};

// What a call of a global gives: callable is the Global value, args the argument tuple. Throws
// Error for a call it does not allow (the message names the global).
using CallHook = std::function<ValuePtr(Document& doc, const Value& callable, const Value& args)>;
// What a persistent id (BINPERSID) stands for.
using PersistentHook = std::function<ValuePtr(Document& doc, const Value& pid)>;

struct Hooks {
    CallHook call;
    PersistentHook persistent;
    // BUILD on an object of the caller's (state: a dict, or None); default: ignored.
    std::function<void(Value& object, const Value& state)> build;
};

// Reads one pickle from data[0, size) into doc (doc.root: what it holds); *consumed is set to
// the bytes it took (up to and including STOP). Throws Error with `what` and the offset for
// anything malformed, truncated, too deep, or outside the subset.
void unpickle(Document& doc, const unsigned char* data, std::size_t size, std::size_t* consumed, const Hooks& hooks,
                  const std::string& what);

// Dict lookups: the value of a string key, or null.
const Value* dict_get(const Value& dict, const std::string& key);

}  // namespace tfm::pickle
