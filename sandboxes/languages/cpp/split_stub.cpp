@@codec@@
namespace reward_split_ {

template <class... Declared>
struct Parameters {};

[[noreturn]] inline void unsupported(const std::string& why) {
    write_all(2, "@@unsupported@@" + why + "\n");
    std::_Exit(1);
}

// the exception the function raised, as the standard type of that name
inline void rethrow(const std::string& name, const std::string& message) {
    first_of(Raised{}, [&](auto kind) {
        using E = typename decltype(kind)::type;
        return name == name_of<E>() ? throw E(message) : false;
    });
    throw std::runtime_error("the function raised " + name + ": " + message);
}

// an argument after the call: copied back where the function takes it by (non-const) reference, else dropped
template <class Declared, class T>
void back(Reader& in, T& argument) {
    if constexpr (std::is_lvalue_reference_v<Declared> && !std::is_const_v<std::remove_reference_t<Declared>>) {
        argument = get<T>(in);
    } else {
        skip(in);
    }
}

// one call sent to the program (fd 3), its reply read back (fd 4)
template <class Result, class... Declared, class... T>
Result call(Parameters<Declared...>, std::tuple<T&...> arguments) {
    if constexpr (!all_known<T...> || !(std::is_void_v<Result> || all_known<Result>)) {
        unsupported("a C++ type that does not cross: " + name_of<Result(T...)>());
    } else {
        static Reader replies(4);
        std::signal(SIGPIPE, SIG_IGN);   // a program that ended: its pipe's error, not a signal
        std::string out = counted('C', sizeof...(T));
        try {
            std::apply([&](const T&... argument) { (put(out, argument), ...); }, arguments);
        } catch (const std::invalid_argument& why) {
            unsupported(why.what());
        }
        write_all(3, out);
        char tag = replies.next();
        if (tag == 'X') {
            std::string name = get<std::string>(replies);
            rethrow(name, get<std::string>(replies));
        }
        if (tag != 'R') throw Unreadable("the program's reply is not a value");
        auto finish = [&] {
            replies.tag('l');
            if (replies.number<size_t>(':') != sizeof...(T)) throw Unreadable("the arguments after the call");
            std::apply([&](T&... argument) { (back<Declared>(replies, argument), ...); }, arguments);
        };
        if constexpr (std::is_void_v<Result>) {
            skip(replies);
            finish();
        } else {
            Result result = get<Result>(replies);
            finish();
            return result;
        }
    }
}

}  // namespace reward_split_

@@ret@@ @@entry@@(@@params@@) {
    return reward_split_::call<@@ret@@>(reward_split_::Parameters<@@declared@@>{}, std::forward_as_tuple(@@names@@));
}
