@@codec@@
namespace reward_split_ {

inline int replies = -1;

// before any constructor of the program's: what it prints goes to stderr, never among the replies
__attribute__((constructor(101))) inline void move_stdout() {
    replies = ::dup(1);
    ::dup2(2, 1);
}

template <class E>
bool named(const std::exception& raised, std::string& name) {
    if (dynamic_cast<const E*>(&raised) == nullptr) return false;
    name = name_of<E>();
    return true;
}

inline std::string failure(const std::string& name, const std::string& message) {
    return 'X' + counted('s', name.size()) + name + counted('s', message.size()) + message;
}

// the calls read from stdin, each answered on the replies: its result and its arguments after it
template <class Result, class... A>
int serve(Result (*function)(A...)) {
    Reader calls(0);
    using Arguments = std::tuple<std::decay_t<A>...>;
    while (calls.peek() == 'C') {
        calls.next();
        std::string reply;
        try {
            if constexpr (!all_known<A...> || !(std::is_void_v<Result> || all_known<Result>)) {
                throw std::invalid_argument("a C++ type that does not cross");
            } else {
                if (calls.number<size_t>(':') != sizeof...(A)) throw std::invalid_argument("another number of arguments");
                Arguments arguments{get<std::decay_t<A>>(calls)...};
                reply = "R";
                if constexpr (std::is_void_v<Result>) {
                    std::apply(function, arguments);
                    reply += 'N';
                } else {
                    put<std::decay_t<Result>>(reply, std::apply(function, arguments));
                }
                reply += counted('l', sizeof...(A));
                std::apply([&](const auto&... argument) { (put(reply, argument), ...); }, arguments);
            }
        } catch (const std::exception& raised) {
            std::string name;
            first_of(Raised{}, [&](auto kind) { return named<typename decltype(kind)::type>(raised, name); });
            reply = failure(name.empty() ? "std::exception" : name, raised.what());
        } catch (...) {
            reply = failure("unknown", "not a std::exception");
        }
        std::fflush(nullptr);
        write_all(replies, reply);
    }
    return 0;
}

}  // namespace reward_split_

int main() { return reward_split_::serve(static_cast<@@ret@@ (*)(@@types@@)>(&@@entry@@)); }
