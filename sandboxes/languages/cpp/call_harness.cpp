// The call-based harness for C++ (docs/grading.md). The grader fills in the placeholders in braces. The harness
// comes first, so that the program's macros cannot touch it; then LeetCode's `using namespace std` and the program
// (its own `main`, if any, renamed out of the way); then a `main` that reads the arguments (JSON, one a line) from
// stdin, converts each to the parameter type the function declares, calls it and prints the result as JSON after
// the marker, then writes the marker to stderr.
#include <bits/stdc++.h>

namespace reward_call_ {

struct Value {
    enum Kind { Null, Bool, Int, Float, String, Array, Object } kind = Null;
    bool boolean = false;
    long long integer = 0;
    double number = 0;
    std::string text;
    std::vector<Value> items;
};

[[noreturn]] inline void fail(const std::string& why) {
    std::fflush(stdout);
    std::fprintf(stderr, "call harness: %s\n", why.c_str());
    std::exit(1);
}

class Parser {
  public:
    explicit Parser(const std::string& text) : text_(text) {}

    Value parse() {
        Value value = next();
        skip();
        if (at_ != text_.size()) fail("text after a JSON value");
        return value;
    }

  private:
    const std::string& text_;
    size_t at_ = 0;

    void skip() {
        while (at_ < text_.size() && std::strchr(" \t\r\n", text_[at_]) != nullptr && text_[at_] != '\0') ++at_;
    }

    bool word(const char* literal) {
        size_t length = std::strlen(literal);
        if (text_.compare(at_, length, literal) != 0) return false;
        at_ += length;
        return true;
    }

    Value next() {
        skip();
        if (at_ >= text_.size()) fail("a JSON value ends early");
        Value value;
        char c = text_[at_];
        if (c == '[' || c == '{') {
            value.kind = c == '[' ? Value::Array : Value::Object;
            char close = c == '[' ? ']' : '}';
            ++at_;
            skip();
            if (at_ < text_.size() && text_[at_] == close) {
                ++at_;
                return value;
            }
            while (true) {
                if (value.kind == Value::Object) {
                    value.items.push_back(next());
                    skip();
                    if (at_ >= text_.size() || text_[at_++] != ':') fail("a JSON object lacks a ':'");
                }
                value.items.push_back(next());
                skip();
                if (at_ < text_.size() && text_[at_] == ',') {
                    ++at_;
                    continue;
                }
                if (at_ < text_.size() && text_[at_] == close) {
                    ++at_;
                    return value;
                }
                fail("a JSON list or object is not closed");
            }
        }
        if (c == '"') return string();
        for (bool truth : {true, false}) {
            if (word(truth ? "true" : "false")) {
                value.kind = Value::Bool;
                value.boolean = truth;
                return value;
            }
        }
        if (word("null")) return value;
        return number();
    }

    Value number() {
        size_t start = at_;
        bool integral = true;
        while (at_ < text_.size() && std::strchr("+-0123456789.eE", text_[at_]) != nullptr && text_[at_] != '\0') {
            integral = integral && std::strchr(".eE", text_[at_]) == nullptr;
            ++at_;
        }
        std::string digits = text_.substr(start, at_ - start);
        if (digits.empty()) fail("not a JSON value");
        Value value;
        char* end = nullptr;
        errno = 0;
        if (integral) {
            value.kind = Value::Int;
            value.integer = std::strtoll(digits.c_str(), &end, 10);
        } else {
            value.kind = Value::Float;
            value.number = std::strtod(digits.c_str(), &end);
        }
        if (*end != '\0' || (integral && errno == ERANGE)) fail("the number " + digits + " does not fit");
        return value;
    }

    static void utf8(std::string& out, unsigned long point) {
        if (point < 0x80) {
            out += static_cast<char>(point);
        } else if (point < 0x800) {
            out += static_cast<char>(0xC0 | (point >> 6));
            out += static_cast<char>(0x80 | (point & 0x3F));
        } else if (point < 0x10000) {
            out += static_cast<char>(0xE0 | (point >> 12));
            out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (point & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (point >> 18));
            out += static_cast<char>(0x80 | ((point >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (point & 0x3F));
        }
    }

    unsigned long hex4() {
        if (at_ + 4 > text_.size()) fail("a \\u escape ends early");
        unsigned long point = std::stoul(text_.substr(at_, 4), nullptr, 16);
        at_ += 4;
        return point;
    }

    Value string() {
        Value value;
        value.kind = Value::String;
        ++at_;
        while (true) {
            if (at_ >= text_.size()) fail("a JSON string is not closed");
            char c = text_[at_++];
            if (c == '"') return value;
            if (c != '\\') {
                value.text += c;
                continue;
            }
            if (at_ >= text_.size()) fail("a JSON string is not closed");
            char escaped = text_[at_++];
            switch (escaped) {
                case 'b': value.text += '\b'; break;
                case 'f': value.text += '\f'; break;
                case 'n': value.text += '\n'; break;
                case 'r': value.text += '\r'; break;
                case 't': value.text += '\t'; break;
                case 'u': {
                    unsigned long point = hex4();
                    if (point >= 0xD800 && point < 0xDC00 && text_.compare(at_, 2, "\\u") == 0) {
                        at_ += 2;
                        point = 0x10000 + ((point - 0xD800) << 10) + (hex4() - 0xDC00);
                    }
                    utf8(value.text, point);
                    break;
                }
                default: value.text += escaped;
            }
        }
    }
};

// A JSON value as the parameter type the function declares; a type not listed here does not compile.
template <class T, class = void>
struct From {
    static_assert(sizeof(T) == 0, "call harness: a parameter type it cannot fill (docs/grading.md lists them)");
};

template <class T>
struct From<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>>> {
    static T get(const Value& value, const std::string& where) {
        long long integer = value.integer;
        if (value.kind == Value::Float && value.number == std::nearbyint(value.number) &&
            std::fabs(value.number) < 9.2e18) {
            integer = static_cast<long long>(value.number);
        } else if (value.kind != Value::Int) {
            fail(where + ": not an integer");
        }
        bool fits = std::is_signed_v<T>
            ? integer >= static_cast<long long>(std::numeric_limits<T>::min()) &&
              integer <= static_cast<long long>(std::numeric_limits<T>::max())
            : integer >= 0 && static_cast<unsigned long long>(integer) <= std::numeric_limits<T>::max();
        if (!fits) fail(where + ": " + std::to_string(integer) + " does not fit the parameter's type");
        return static_cast<T>(integer);
    }
};

template <class T>
struct From<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static T get(const Value& value, const std::string& where) {
        if (value.kind == Value::Int) return static_cast<T>(value.integer);
        if (value.kind != Value::Float) fail(where + ": not a number");
        return static_cast<T>(value.number);
    }
};

template <>
struct From<bool> {
    static bool get(const Value& value, const std::string& where) {
        if (value.kind != Value::Bool) fail(where + ": not a boolean");
        return value.boolean;
    }
};

template <>
struct From<char> {
    static char get(const Value& value, const std::string& where) {
        if (value.kind != Value::String || value.text.size() != 1) fail(where + ": not a one-character string");
        return value.text[0];
    }
};

template <>
struct From<std::string> {
    static std::string get(const Value& value, const std::string& where) {
        if (value.kind != Value::String) fail(where + ": not a string");
        return value.text;
    }
};

template <class E>
struct From<std::vector<E>> {
    static std::vector<E> get(const Value& value, const std::string& where) {
        if (value.kind != Value::Array) fail(where + ": not a list");
        std::vector<E> out;
        out.reserve(value.items.size());
        for (size_t i = 0; i < value.items.size(); ++i) {
            out.push_back(From<E>::get(value.items[i], where + "[" + std::to_string(i) + "]"));
        }
        return out;
    }
};

// The result as JSON; a type not listed here does not compile.
template <class T, class = void>
struct To {
    static_assert(sizeof(T) == 0, "call harness: a result type it cannot report (docs/grading.md lists them)");
};

inline void quote(std::string& out, const std::string& text) {
    out += '"';
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

template <class T>
struct To<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>>> {
    static void put(std::string& out, T value) { out += std::to_string(value); }
};

template <class T>
struct To<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static void put(std::string& out, T value) {
        if (std::isnan(value)) {
            out += "NaN";
        } else if (std::isinf(value)) {
            out += value > 0 ? "Infinity" : "-Infinity";
        } else {
            char digits[64];
            auto written = std::to_chars(digits, digits + sizeof digits, value);  // the shortest exact form
            out.append(digits, written.ptr);
        }
    }
};

template <>
struct To<bool> {
    static void put(std::string& out, bool value) { out += value ? "true" : "false"; }
};

template <>
struct To<char> {
    static void put(std::string& out, char value) { quote(out, std::string(1, value)); }
};

template <>
struct To<std::string> {
    static void put(std::string& out, const std::string& value) { quote(out, value); }
};

template <class E>
struct To<std::vector<E>> {
    static void put(std::string& out, const std::vector<E>& value) {
        out += '[';
        for (size_t i = 0; i < value.size(); ++i) {
            if (i > 0) out += ',';
            To<E>::put(out, static_cast<E>(value[i]));
        }
        out += ']';
    }
};

template <class F>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
    using Result = std::decay_t<R>;
    using Arguments = std::tuple<std::decay_t<A>...>;
};
template <class R, class... A>
struct Signature<R (*)(A...) noexcept> : Signature<R (*)(A...)> {};
template <class R, class C, class... A>
struct Signature<R (C::*)(A...)> : Signature<R (*)(A...)> {};
template <class R, class C, class... A>
struct Signature<R (C::*)(A...) const> : Signature<R (*)(A...)> {};
template <class R, class C, class... A>
struct Signature<R (C::*)(A...) noexcept> : Signature<R (*)(A...)> {};
template <class R, class C, class... A>
struct Signature<R (C::*)(A...) const noexcept> : Signature<R (*)(A...)> {};

template <class Arguments, size_t... I>
Arguments fill(const std::vector<Value>& values, std::index_sequence<I...>) {
    return Arguments{From<std::tuple_element_t<I, Arguments>>::get(values[I], "argument " + std::to_string(I + 1))...};
}

template <class Function, class Call>
int run(Call call, const char* marker) {
    using Result = typename Signature<Function>::Result;
    using Arguments = typename Signature<Function>::Arguments;
    static_assert(!std::is_void_v<Result>, "call harness: the function returns nothing to compare");
    std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    std::vector<Value> values;
    size_t start = 0;
    while (true) {
        size_t end = input.find('\n', start);
        values.push_back(Parser(input.substr(start, end == std::string::npos ? end : end - start)).parse());
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (values.size() != std::tuple_size_v<Arguments>) {
        fail("the function takes " + std::to_string(std::tuple_size_v<Arguments>) + " arguments, the test gives " +
             std::to_string(values.size()));
    }
    Arguments arguments = fill<Arguments>(values, std::make_index_sequence<std::tuple_size_v<Arguments>>{});
    Result result = std::apply(call, arguments);
    std::string report;
    To<Result>::put(report, result);
    std::cout.flush();
    std::fflush(stdout);
    std::fputs(marker, stdout);
    std::fwrite(report.data(), 1, report.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    std::fputs(marker, stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
    return 0;
}

}  // namespace reward_call_

using namespace std;
#define main reward_program_main_
{program}
#undef main
#define REWARD_SOLUTION_CLASS_ {solution}

signed main() {
#if REWARD_SOLUTION_CLASS_
    Solution reward_solution_;
    return reward_call_::run<decltype(&Solution::{function})>(
        [&](auto&... arguments) { return reward_solution_.{function}(arguments...); }, "{marker}");
#else
    return reward_call_::run<decltype(&{function})>(
        [&](auto&... arguments) { return {function}(arguments...); }, "{marker}");
#endif
}
