// The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: each value is read into
// the standard type the prompt declares, never one the program defines. A std::any crosses as a tuple of its
// content's type (its typeid name, one of AnyTypes) and the content, so that an int stays an int; a type with no codec
// here (a union of the prompt's) cannot cross: the tests' side says so before it sends anything.
#include <any>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cxxabi.h>
#include <deque>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unistd.h>
#include <utility>
#include <vector>

namespace reward_split_ {

struct Unreadable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Reader {
  public:
    explicit Reader(int fd) : fd_(fd) {}

    int peek() {
        if (at_ == end_) {
            ssize_t got;
            do got = ::read(fd_, buffer_, sizeof buffer_);
            while (got < 0 && errno == EINTR);
            if (got <= 0) return -1;
            at_ = 0;
            end_ = static_cast<size_t>(got);
        }
        return static_cast<unsigned char>(buffer_[at_]);
    }

    char next() {
        int byte = peek();
        if (byte < 0) throw Unreadable("the program ended during a call");
        ++at_;
        return static_cast<char>(byte);
    }

    void tag(char expected) {
        if (next() != expected) throw Unreadable(std::string("the reply is not a value of the declared type"));
    }

    // the digits up to `end`: a count (unsigned) or an integer of T
    template <class T>
    T number(char end) {
        T value = 0;
        bool negative = std::is_signed_v<T> && peek() == '-';
        if (negative) next();
        int digits = 0;
        for (char c = next(); c != end; c = next(), ++digits) {
            if (c < '0' || c > '9' || __builtin_mul_overflow(value, T(10), &value) ||
                (negative ? __builtin_sub_overflow(value, T(c - '0'), &value)
                          : __builtin_add_overflow(value, T(c - '0'), &value))) {
                throw Unreadable("a number that does not fit its declared type");
            }
        }
        if (digits == 0) throw Unreadable("a number without digits");
        return value;
    }

    std::string bytes() {
        std::string text;
        for (size_t left = number<size_t>(':'); left > 0; --left) text += next();
        return text;
    }

  private:
    int fd_;
    char buffer_[1 << 16];
    size_t at_ = 0, end_ = 0;
};

// a list of types, and the first of them for which `found(Type<T>{})` is true
template <class T>
struct Type {
    using type = T;
};
template <class... T>
struct Types {};
template <class... T, class F>
bool first_of(Types<T...>, F found) {
    return (found(Type<T>{}) || ...);
}

inline std::string counted(char tag, size_t count) { return tag + std::to_string(count) + ':'; }

// Codec<T>: known, put(out, value) and get(reader) for each type that crosses
template <class T, class = void>
struct Codec {
    static constexpr bool known = false;
};

template <class... T>
constexpr bool all_known = (Codec<std::decay_t<T>>::known && ...);

template <class T>
void put(std::string& out, const T& value) {
    Codec<T>::put(out, value);
}

template <class T>
T get(Reader& in) {
    return Codec<T>::get(in);
}

template <>
struct Codec<bool> {
    static constexpr bool known = true;
    static void put(std::string& out, bool value) { out += value ? 'T' : 'F'; }
    static bool get(Reader& in) {
        char tag = in.next();
        if (tag != 'T' && tag != 'F') throw Unreadable("not a boolean");
        return tag == 'T';
    }
};

template <>
struct Codec<char> {
    static constexpr bool known = true;
    static void put(std::string& out, char value) { out += counted('c', 1) + value; }
    static char get(Reader& in) {
        in.tag('c');
        std::string text = in.bytes();
        if (text.size() != 1) throw Unreadable("not a one-byte character");
        return text[0];
    }
};

template <class T>
struct Codec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>>> {
    static constexpr bool known = true;
    static void put(std::string& out, T value) { out += 'i' + std::to_string(value) + ';'; }
    static T get(Reader& in) {
        in.tag('i');
        return in.number<T>(';');
    }
};

// a float widens to the double it is exactly, and narrows back
template <class T>
struct Codec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static constexpr bool known = true;
    static void put(std::string& out, T value) {
        double wide = static_cast<double>(value);
        std::uint64_t bits;
        std::memcpy(&bits, &wide, sizeof bits);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
        out += 'd';
        out += hex;
    }
    static T get(Reader& in) {
        in.tag('d');
        std::uint64_t bits = 0;
        for (int i = 0; i < 16; ++i) {
            char c = in.next();
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) throw Unreadable("not a float's bits");
            bits = bits << 4 | static_cast<std::uint64_t>(digit);
        }
        double wide;
        std::memcpy(&wide, &bits, sizeof wide);
        return static_cast<T>(wide);
    }
};

template <>
struct Codec<std::string> {
    static constexpr bool known = true;
    static void put(std::string& out, const std::string& value) { out += counted('s', value.size()) + value; }
    static std::string get(Reader& in) {
        in.tag('s');
        return in.bytes();
    }
};

// a string literal in a std::any: its text, kept alive for the rest of the run
template <>
struct Codec<const char*> {
    static constexpr bool known = true;
    static void put(std::string& out, const char* value) { Codec<std::string>::put(out, value); }
    static const char* get(Reader& in) {
        static std::deque<std::string> kept;
        return kept.emplace_back(Codec<std::string>::get(in)).c_str();
    }
};

template <class Container, char Tag>
struct Sequence {
    static constexpr bool known = Codec<typename Container::value_type>::known;
    static void put(std::string& out, const Container& value) {
        out += counted(Tag, value.size());
        for (const auto& item : value) reward_split_::put<typename Container::value_type>(out, item);
    }
    static Container get(Reader& in) {
        in.tag(Tag);
        Container items;
        for (size_t left = in.number<size_t>(':'); left > 0; --left) {
            items.insert(items.end(), reward_split_::get<typename Container::value_type>(in));
        }
        return items;
    }
};

template <class E>
struct Codec<std::vector<E>> : Sequence<std::vector<E>, 'l'> {};
template <class E>
struct Codec<std::set<E>> : Sequence<std::set<E>, 'e'> {};

template <class K, class V>
struct Codec<std::map<K, V>> {
    static constexpr bool known = all_known<K, V>;
    static void put(std::string& out, const std::map<K, V>& value) {
        out += counted('m', value.size());
        for (const auto& [key, item] : value) {
            reward_split_::put<K>(out, key);
            reward_split_::put<V>(out, item);
        }
    }
    static std::map<K, V> get(Reader& in) {
        in.tag('m');
        std::map<K, V> pairs;
        for (size_t left = in.number<size_t>(':'); left > 0; --left) {
            K key = reward_split_::get<K>(in);
            pairs.insert_or_assign(std::move(key), reward_split_::get<V>(in));
        }
        return pairs;
    }
};

template <class... E>
struct Codec<std::tuple<E...>> {
    static constexpr bool known = all_known<E...>;
    static void put(std::string& out, const std::tuple<E...>& value) {
        out += counted('t', sizeof...(E));
        std::apply([&](const E&... items) { (reward_split_::put<E>(out, items), ...); }, value);
    }
    static std::tuple<E...> get(Reader& in) {
        in.tag('t');
        if (in.number<size_t>(':') != sizeof...(E)) throw Unreadable("a tuple of another size");
        return std::tuple<E...>{reward_split_::get<E>(in)...};    // braces: read in order
    }
};

template <class A, class B>
struct Codec<std::pair<A, B>> {
    static constexpr bool known = all_known<A, B>;
    static void put(std::string& out, const std::pair<A, B>& value) {
        Codec<std::tuple<A, B>>::put(out, std::tuple<A, B>(value.first, value.second));
    }
    static std::pair<A, B> get(Reader& in) {
        auto [first, second] = Codec<std::tuple<A, B>>::get(in);
        return {std::move(first), std::move(second)};
    }
};

template <class T>
struct Codec<std::optional<T>> {
    static constexpr bool known = Codec<T>::known;
    static void put(std::string& out, const std::optional<T>& value) {
        if (value) {
            reward_split_::put<T>(out, *value);
        } else {
            out += 'N';
        }
    }
    static std::optional<T> get(Reader& in) {
        if (in.peek() == 'N') {
            in.next();
            return std::nullopt;
        }
        return reward_split_::get<T>(in);
    }
};

// what a std::any may hold to cross: the types MultiPL-E's tests put in one
using AnyTypes = Types<int, long, long long, unsigned, unsigned long, float, double, bool, char, std::string,
                            const char*, std::vector<long>, std::vector<int>, std::vector<double>,
                            std::vector<float>, std::vector<std::string>, std::vector<std::any>, std::map<long, long>,
                            std::map<std::string, long>, std::map<std::string, std::string>>;

template <>
struct Codec<std::any> {
    static constexpr bool known = true;
    static void put(std::string& out, const std::any& value) {
        if (!value.has_value()) {
            out += 'N';
            return;
        }
        bool found = first_of(AnyTypes{}, [&](auto type) { return put_as<typename decltype(type)::type>(out, value); });
        if (!found) throw std::invalid_argument(std::string("a std::any holding a ") + value.type().name());
    }
    static std::any get(Reader& in) {
        if (in.peek() == 'N') {
            in.next();
            return {};
        }
        in.tag('t');
        if (in.number<size_t>(':') != 2) throw Unreadable("a std::any is a tuple of its type and its value");
        std::string type = Codec<std::string>::get(in);
        std::any value;
        bool found = first_of(AnyTypes{}, [&](auto kind) { return get_as<typename decltype(kind)::type>(in, type, value); });
        if (!found) throw Unreadable("a std::any of a type that does not cross");
        return value;
    }

  private:
    template <class T>
    static bool put_as(std::string& out, const std::any& value) {
        if (value.type() != typeid(T)) return false;
        out += counted('t', 2);
        Codec<std::string>::put(out, typeid(T).name());
        reward_split_::put<T>(out, std::any_cast<const T&>(value));
        return true;
    }
    template <class T>
    static bool get_as(Reader& in, const std::string& type, std::any& value) {
        if (type != typeid(T).name()) return false;
        value = reward_split_::get<T>(in);
        return true;
    }
};

// one value of any shape read and dropped (an argument passed by value: its state after the call is not the caller's)
inline void skip(Reader& in, int depth = 0) {
    if (depth > 200) throw Unreadable("a value nested too deep");
    char tag = in.next();
    if (tag == 'N' || tag == 'U' || tag == 'T' || tag == 'F') return;
    if (tag == 'i') {
        while (in.next() != ';') {
        }
        return;
    }
    if (tag == 'd') {
        for (int i = 0; i < 16; ++i) in.next();
        return;
    }
    size_t count = in.number<size_t>(':');
    if (tag == 's' || tag == 'c' || tag == 'y') {
        for (; count > 0; --count) in.next();
        return;
    }
    if (tag != 'l' && tag != 't' && tag != 'e' && tag != 'm') throw Unreadable("not a value of the wire format");
    for (size_t items = tag == 'm' ? 2 * count : count; items > 0; --items) skip(in, depth + 1);
}

// the standard exceptions that cross by name, the most derived first
using Raised = Types<std::out_of_range, std::invalid_argument, std::domain_error, std::length_error, std::logic_error,
                     std::range_error, std::overflow_error, std::underflow_error, std::runtime_error>;

template <class E>
std::string name_of() {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(E).name(), nullptr, nullptr, &status);
    std::string text = name == nullptr ? typeid(E).name() : name;
    std::free(name);
    return text;
}

inline void write_all(int fd, const std::string& data) {
    for (size_t at = 0; at < data.size();) {
        ssize_t wrote = ::write(fd, data.data() + at, data.size() - at);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) throw Unreadable("the program ended during a call");
        at += static_cast<size_t>(wrote);
    }
}

}  // namespace reward_split_
