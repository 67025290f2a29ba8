#include "tfm/io/pickle.hpp"

#include <cstring>
#include <unordered_map>

#include "tfm/base/error.hpp"

namespace tfm::pickle {

ValuePtr Document::make(Value::Kind kind) {
    values_.push_back(std::make_unique<Value>());
    values_.back()->kind = kind;
    return values_.back().get();
}

ValuePtr Document::make_int(std::int64_t v) {
    ValuePtr p = make(Value::Kind::Int);
    p->integer = v;
    return p;
}

ValuePtr Document::make_string(std::string s, Value::Kind kind) {
    ValuePtr p = make(kind);
    p->text = std::move(s);
    return p;
}

ValuePtr Document::make_tuple(std::vector<ValuePtr> items) {
    ValuePtr p = make(Value::Kind::Tuple);
    p->items = std::move(items);
    return p;
}

ValuePtr Document::make_object(std::string what, std::shared_ptr<void> payload) {
    ValuePtr p = make(Value::Kind::Object);
    p->text = std::move(what);
    p->payload = std::move(payload);
    return p;
}

const Value* dict_get(const Value& dict, const std::string& key) {
    if (!dict.is(Value::Kind::Dict)) return nullptr;
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2)
        if (dict.items[i]->is(Value::Kind::String) && dict.items[i]->text == key) return dict.items[i + 1];
    return nullptr;
}

namespace {

constexpr std::size_t kMaxDepth = 10000;  // nesting of MARKs

class Reader {
public:
    Reader(Document& doc, const unsigned char* data, std::size_t size, const Hooks& hooks, const std::string& what)
        : doc_(doc), p_(data), size_(size), hooks_(hooks), what_(what) {}

    ValuePtr run(std::size_t* consumed) {
        for (;;) {
            const std::size_t at = pos_;
            const unsigned char op = byte();
            if (op == '.') {  // STOP
                if (stack_.size() != 1 || !marks_.empty()) fail(at, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
                *consumed = pos_;
                return stack_.back();
            }
            step(op, at);
        }
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string& why) const {
        throw Error(what_ + ": pickle at byte " + std::to_string(at) + ": " + why);
    }
    void need(std::size_t n) const {
        if (n > size_ - pos_) fail(pos_, "truncated (" + std::to_string(n) + " more bytes needed)");
    }
    unsigned char byte() {
        need(1);
        return p_[pos_++];
    }
    std::uint64_t le(std::size_t n) {
        need(n);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t(p_[pos_ + i]) << (8 * i);
        pos_ += n;
        return v;
    }
    std::string bytes(std::uint64_t n) {
        if (n > size_ - pos_) fail(pos_, "a string of " + std::to_string(n) + " bytes runs past the end");
        std::string s(reinterpret_cast<const char*>(p_ + pos_), std::size_t(n));
        pos_ += std::size_t(n);
        return s;
    }
    std::string line() {
        const void* nl = std::memchr(p_ + pos_, '\n', size_ - pos_);
        if (!nl) fail(pos_, "a GLOBAL's name has no end");
        const std::size_t n = std::size_t(static_cast<const unsigned char*>(nl) - (p_ + pos_));
        std::string s = bytes(n);
        ++pos_;
        return s;
    }
    ValuePtr pop(std::size_t at) {
        if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail(at, "pop from an empty stack");
        ValuePtr v = stack_.back();
        stack_.pop_back();
        return v;
    }
    Value& top(std::size_t at) {
        if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail(at, "an empty stack");
        return *stack_.back();
    }
    // The values since the last MARK, removed from the stack with the mark.
    std::vector<ValuePtr> since_mark(std::size_t at) {
        if (marks_.empty()) fail(at, "no MARK");
        const std::size_t m = marks_.back();
        marks_.pop_back();
        std::vector<ValuePtr> out(stack_.begin() + long(m), stack_.end());
        stack_.resize(m);
        return out;
    }
    void push(ValuePtr v) { stack_.push_back(v); }
    void push_kind(Value::Kind k) { push(doc_.make(k)); }
    void memo_put(std::uint64_t key, std::size_t at) {
        if (stack_.empty()) fail(at, "memoize with an empty stack");
        if (memo_.size() >= size_) fail(at, "too many memo entries");
        memo_[key] = stack_.back();
    }
    void memo_get(std::uint64_t key, std::size_t at) {
        auto it = memo_.find(key);
        if (it == memo_.end()) fail(at, "memo entry " + std::to_string(key) + " was never stored");
        push(it->second);
    }
    void add_items(Value& target, std::vector<ValuePtr> items, std::size_t at) {
        if (target.is(Value::Kind::Dict)) {
            if (items.size() % 2) fail(at, "SETITEMS with an odd number of values");
        } else if (!target.is(Value::Kind::List)) {
            fail(at, "items added to something that is neither a dict nor a list");
        }
        target.items.insert(target.items.end(), items.begin(), items.end());
    }
    ValuePtr call(const ValuePtr& callable, const ValuePtr& args, std::size_t at) {
        if (!callable->is(Value::Kind::Global)) fail(at, "a call of something that is not a global");
        if (!args->is(Value::Kind::Tuple)) fail(at, "a call whose arguments are not a tuple");
        if (!hooks_.call) fail(at, "calls are not allowed here (" + callable->text + ")");
        return hooks_.call(doc_, *callable, *args);
    }

    void step(unsigned char op, std::size_t at) {
        switch (op) {
            case 0x80: byte(); break;                            // PROTO
            case 0x95: le(8); break;                             // FRAME
            case '}': push_kind(Value::Kind::Dict); break;       // EMPTY_DICT
            case ']': push_kind(Value::Kind::List); break;       // EMPTY_LIST
            case ')': push(doc_.make_tuple({})); break;               // EMPTY_TUPLE
            case '(':                                            // MARK
                if (marks_.size() >= kMaxDepth) fail(at, "nested more than " + std::to_string(kMaxDepth) + " deep");
                marks_.push_back(stack_.size());
                break;
            case 'N': push(doc_.make(Value::Kind::None)); break;
            case 0x88: case 0x89: {                              // NEWTRUE, NEWFALSE
                ValuePtr v = doc_.make(Value::Kind::Bool);
                v->boolean = op == 0x88;
                push(v);
                break;
            }
            case 'J': push(doc_.make_int(std::int32_t(std::uint32_t(le(4))))); break;  // BININT
            case 'K': push(doc_.make_int(std::int64_t(le(1)))); break;                 // BININT1
            case 'M': push(doc_.make_int(std::int64_t(le(2)))); break;                 // BININT2
            case 0x8a: {                                                          // LONG1
                const std::size_t n = byte();
                if (n > 8) {  // kept as its bytes (torch's legacy magic number is 10 bytes long)
                    push(doc_.make_string(bytes(n), Value::Kind::LongInt));
                    break;
                }
                std::uint64_t v = n ? le(n) : 0;
                if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~std::uint64_t(0) << (8 * n);  // sign
                push(doc_.make_int(std::int64_t(v)));
                break;
            }
            case 'G': {                                                           // BINFLOAT
                need(8);
                std::uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits = (bits << 8) | p_[pos_ + std::size_t(i)];
                pos_ += 8;
                ValuePtr v = doc_.make(Value::Kind::Float);
                std::memcpy(&v->real, &bits, 8);
                push(v);
                break;
            }
            case 'X': push(doc_.make_string(bytes(le(4)))); break;                     // BINUNICODE
            case 0x8c: push(doc_.make_string(bytes(le(1)))); break;                    // SHORT_BINUNICODE
            case 0x8d: push(doc_.make_string(bytes(le(8)))); break;                    // BINUNICODE8
            case 'T': push(doc_.make_string(bytes(le(4)))); break;                     // BINSTRING
            case 'U': push(doc_.make_string(bytes(le(1)))); break;                     // SHORT_BINSTRING
            case 'B': push(doc_.make_string(bytes(le(4)), Value::Kind::Bytes)); break; // BINBYTES
            case 'C': push(doc_.make_string(bytes(le(1)), Value::Kind::Bytes)); break; // SHORT_BINBYTES
            case 0x8e: push(doc_.make_string(bytes(le(8)), Value::Kind::Bytes)); break;// BINBYTES8
            case 'q': memo_put(le(1), at); break;                                 // BINPUT
            case 'r': memo_put(le(4), at); break;                                 // LONG_BINPUT
            case 0x94: memo_put(memo_.size(), at); break;                         // MEMOIZE
            case 'h': memo_get(le(1), at); break;                                 // BINGET
            case 'j': memo_get(le(4), at); break;                                 // LONG_BINGET
            case 'c': {                                                           // GLOBAL
                std::string module = line();
                std::string name = line();
                push(doc_.make_string(module + "." + name, Value::Kind::Global));
                break;
            }
            case 0x93: {                                                          // STACK_GLOBAL
                ValuePtr name = pop(at), module = pop(at);
                if (!name->is(Value::Kind::String) || !module->is(Value::Kind::String))
                    fail(at, "STACK_GLOBAL of something that is not a name");
                push(doc_.make_string(module->text + "." + name->text, Value::Kind::Global));
                break;
            }
            case 'Q': {                                                           // BINPERSID
                ValuePtr pid = pop(at);
                if (!hooks_.persistent) fail(at, "a persistent id where none is expected");
                push(hooks_.persistent(doc_, *pid));
                break;
            }
            case 't': push(doc_.make_tuple(since_mark(at))); break;                    // TUPLE
            case 0x85: { ValuePtr a = pop(at); push(doc_.make_tuple({a})); break; }   // TUPLE1
            case 0x86: { ValuePtr b = pop(at), a = pop(at); push(doc_.make_tuple({a, b})); break; }
            case 0x87: { ValuePtr c = pop(at), b = pop(at), a = pop(at); push(doc_.make_tuple({a, b, c})); break; }
            case 'l': {                                                           // LIST
                ValuePtr v = doc_.make(Value::Kind::List);
                v->items = since_mark(at);
                push(v);
                break;
            }
            case 'd': {                                                           // DICT
                ValuePtr v = doc_.make(Value::Kind::Dict);
                add_items(*v, since_mark(at), at);
                push(v);
                break;
            }
            case 'R': case 0x81: {                                                // REDUCE, NEWOBJ
                ValuePtr args = pop(at), callable = pop(at);
                push(call(callable, args, at));
                break;
            }
            case 'b': {                                                           // BUILD
                ValuePtr state = pop(at);
                Value& obj = top(at);
                if (hooks_.build) hooks_.build(obj, *state);
                break;
            }
            case 's': {                                                           // SETITEM
                ValuePtr v = pop(at), k = pop(at);
                add_items(top(at), {k, v}, at);
                break;
            }
            case 'u': {                                                           // SETITEMS
                std::vector<ValuePtr> items = since_mark(at);
                add_items(top(at), std::move(items), at);
                break;
            }
            case 'a': { ValuePtr v = pop(at); add_items(top(at), {v}, at); break; }  // APPEND
            case 'e': {                                                            // APPENDS
                std::vector<ValuePtr> items = since_mark(at);
                add_items(top(at), std::move(items), at);
                break;
            }
            case '0': pop(at); break;                                              // POP
            default: {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", op);
                fail(at, std::string("opcode ") + hex + " is outside what torch.save writes");
            }
        }
    }

    Document& doc_;
    const unsigned char* p_;
    std::size_t size_, pos_ = 0;
    const Hooks& hooks_;
    const std::string& what_;
    std::vector<ValuePtr> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint64_t, ValuePtr> memo_;
};

}  // namespace

void unpickle(Document& doc, const unsigned char* data, std::size_t size, std::size_t* consumed, const Hooks& hooks,
              const std::string& what) {
    Reader r(doc, data, size, hooks, what);
    std::size_t used = 0;
    doc.root = r.run(&used);
    if (consumed) *consumed = used;
}

}  // namespace tfm::pickle
