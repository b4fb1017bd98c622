"""Call-based tests (LiveCodeBench functional) through a real server and real sandboxes: Python exactly as
LiveCodeBench grades it (tuple as list, no float tolerance, plain `==`, first failure decides, exceptions are runtime
errors), the same problems in C++, Java and JavaScript, tests a harness cannot pose, and malformed requests."""

from __future__ import annotations

import textwrap

import grpc
import pytest

from reward_server.pb import reward_pb2, reward_pb2_grpc
from tests.candidates import verdict_name

# (function, [(LiveCodeBench input text, output text)]): LiveCodeBench's own test format
PAIR = ("pairIndices", [("[2, 7, 11, 15]\n9", "[0, 1]"), ("[3, 2, 4]\n6", "[1, 2]"), ("[3, 3]\n6", "[0, 1]")])
REVERSE = ("reverseWords", [('"the sky is  blue"', '"blue is sky the"'), ('"  hello world  "', '"world hello"')])
TRANSPOSE = ("transpose", [("[[1, 2, 3], [4, 5, 6]]", "[[1, 4], [2, 5], [3, 6]]"), ("[[7]]", "[[7]]")])
AVERAGE = ("average", [("[1, 2, 3, 4]", "2.5"), ("[2, 2]", "2.0"), ("[1, 1, 2]", "1.3333333333333333")])
SORTED = ("isSorted", [("[1, 2, 2]", "true"), ("[3, 1]", "false")])
FIRST_ABOVE = ("firstAbove", [("[1, 5, 3]\n4", "5"), ("[1, 2]\n9", "null")])
TWICE = ("twice", [("3", "6"), ("-4\n", "-8")])    # a final newline is ignored
PROBLEMS = {"pair": PAIR, "reverse": REVERSE, "transpose": TRANSPOSE, "average": AVERAGE, "sorted": SORTED,
            "first": FIRST_ABOVE, "twice": TWICE}


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


PYTHON = {
    "pair": code("""
        class Solution:
            def pairIndices(self, nums: List[int], target: int) -> List[int]:
                seen = {}
                for i, x in enumerate(nums):
                    if target - x in seen:
                        return (seen[target - x], i)   # a tuple counts as a list
                    seen[x] = i
        """),
    "reverse": code("""
        class Solution:
            def reverseWords(self, s: str) -> str:
                print("debugging output does not matter")
                return " ".join(reversed(s.split()))

        if __name__ == "__main__":   # LiveCodeBench runs the code as module tmp_sol: this never runs
            raise SystemExit(3)
        """),
    "transpose": code("""
        class Solution:
            def transpose(self, matrix: List[List[int]]) -> List[List[int]]:
                return [list(column) for column in zip(*matrix)]
        """),
    "average": code("""
        class Solution:
            def average(self, nums: List[int]) -> float:
                return sum(nums) / len(nums)
        """),
    "sorted": code("""
        class Solution:
            def isSorted(self, nums: List[int]) -> bool:
                return int(all(a <= b for a, b in pairwise(nums)))   # 1 == True for Python's ==
        """),
    "first": code("""
        class Solution:
            def firstAbove(self, nums: List[int], x: int) -> Optional[int]:
                return next((v for v in nums if v > x), None)
        """),
    "twice": code("""
        def twice(x):   # a top-level function (the text names no Solution class)
            return 2 * x
        """),
}
PYTHON_WRONG = {
    "pair-order": ("pair", code("""
        class Solution:
            def pairIndices(self, nums, target):
                for i in range(len(nums)):
                    for j in range(i + 1, len(nums)):
                        if nums[i] + nums[j] == target:
                            return [j, i]
        """), "WRONG_ANSWER", "test 0: expected [0, 1], got [1, 0]"),
    "nested-tuples": ("transpose", code("""
        class Solution:
            def transpose(self, matrix):
                return list(zip(*matrix))   # only a returned tuple becomes a list: these stay tuples
        """), "WRONG_ANSWER", "test 0:"),
    "float-tolerance": ("average", code("""
        class Solution:
            def average(self, nums):
                return sum(nums) / len(nums) + 1e-12   # no tolerance
        """), "WRONG_ANSWER", "test 0: expected 2.5"),
    "raises": ("twice", code("""
        def twice(x):
            return [][x]
        """), "RUNTIME_ERROR", "IndexError"),
    "missing": ("twice", code("""
        def thrice(x):
            return 3 * x
        """), "RUNTIME_ERROR", "AttributeError"),
    "exits": ("twice", code("""
        import sys
        def twice(x):
            sys.exit(0)
        """), "EXITED_EARLY", "exited 0 before its tests finished"),
}

CPP = {
    "pair": code("""
        class Solution {
        public:
            vector<int> pairIndices(vector<int>& nums, int target) {
                unordered_map<int, int> seen;
                for (int i = 0; i < (int) nums.size(); ++i) {
                    auto found = seen.find(target - nums[i]);
                    if (found != seen.end()) return {found->second, i};
                    seen[nums[i]] = i;
                }
                return {};
            }
        };
        """),
    "reverse": code("""
        class Solution {
        public:
            string reverseWords(string s) {
                istringstream in(s);
                vector<string> words;
                for (string word; in >> word;) words.push_back(word);
                reverse(words.begin(), words.end());
                string out;
                for (auto& word : words) out += (out.empty() ? "" : " ") + word;
                return out;
            }
        };
        int main() {   // the program's own main is renamed out of the way
            cout << Solution().reverseWords("a b") << endl;
        }
        """),
    "transpose": code("""
        class Solution {
        public:
            vector<vector<int>> transpose(const vector<vector<int>>& m) const {
                vector<vector<int>> t(m[0].size(), vector<int>(m.size()));
                for (size_t i = 0; i < m.size(); ++i)
                    for (size_t j = 0; j < m[0].size(); ++j) t[j][i] = m[i][j];
                return t;
            }
        };
        """),
    "average": code("""
        class Solution {
        public:
            double average(vector<int>& nums) {
                return (double) accumulate(nums.begin(), nums.end(), 0LL) / nums.size();
            }
        };
        """),
    "sorted": code("""
        #define int long long
        struct Solution {
            bool isSorted(vector<int> nums) { return is_sorted(nums.begin(), nums.end()); }
        };
        """),
    "twice": code("""
        long long twice(long long x) { return 2 * x; }
        """),
}
CPP_WRONG = {
    "float-precision": ("average", code("""
        class Solution {
        public:
            float average(vector<int>& nums) { return (float) accumulate(nums.begin(), nums.end(), 0) / nums.size(); }
        };
        """), "WRONG_ANSWER", "test 2: expected 1.3333333333333333, got 1.3333334"),
    "exits": ("twice", "int twice(int x) { exit(0); }\n", "EXITED_EARLY", "exited 0"),
    "narrow-parameter": ("wide", "int twice(int x) { return 2 * x; }\n", "RUNTIME_ERROR",
                         "argument 1: 5000000000 does not fit the parameter's type"),
}
WIDE = ("twice", [("5000000000", "10000000000")])

JAVA = {
    "pair": code("""
        class Solution {
            public int[] pairIndices(int[] nums, int target) {
                Map<Integer, Integer> seen = new HashMap<>();
                for (int i = 0; i < nums.length; i++) {
                    Integer j = seen.get(target - nums[i]);
                    if (j != null) return new int[] {j, i};
                    seen.put(nums[i], i);
                }
                return new int[0];
            }
        }
        """),
    "reverse": code("""
        public class Solution {
            public String reverseWords(String s) {
                List<String> words = new ArrayList<>(Arrays.asList(s.trim().split("\\\\s+")));
                Collections.reverse(words);
                return String.join(" ", words);
            }

            public static void main(String[] args) {   // not the entry point: the harness is
                System.out.println("never");
            }
        }
        """),
    "transpose": code("""
        class Solution {
            public List<List<Integer>> transpose(List<List<Integer>> m) {
                List<List<Integer>> t = new ArrayList<>();
                for (int j = 0; j < m.get(0).size(); j++) {
                    List<Integer> row = new ArrayList<>();
                    for (List<Integer> r : m) row.add(r.get(j));
                    t.add(row);
                }
                return t;
            }
        }
        """),
    "average": code("""
        class Solution {
            public double average(int[] nums) {
                long s = 0;
                for (int x : nums) s += x;
                return (double) s / nums.length;
            }
        }
        """),
    "sorted": code("""
        class Solution {
            public static boolean isSorted(int[] nums) {
                for (int i = 1; i < nums.length; i++) if (nums[i - 1] > nums[i]) return false;
                return true;
            }
        }
        """),
    "first": code("""
        class Solution {
            public Integer firstAbove(int[] nums, int x) {
                for (int v : nums) if (v > x) return v;
                return null;
            }
        }
        """),
}
JAVA_WRONG = {
    "exits": ("sorted", code("""
        class Solution {
            public boolean isSorted(int[] nums) { System.exit(0); return true; }
        }
        """), "EXITED_EARLY", "exited 0"),
    "wrong": ("pair", code("""
        class Solution {
            public int[] pairIndices(int[] nums, int target) { return new int[] {0, 0}; }
        }
        """), "WRONG_ANSWER", "test 0: expected [0, 1], got [0,0]"),
}

JAVASCRIPT = {
    "pair": code("""
        var pairIndices = function(nums, target) {
            const seen = new Map();
            for (let i = 0; i < nums.length; i++) {
                if (seen.has(target - nums[i])) return [seen.get(target - nums[i]), i];
                seen.set(nums[i], i);
            }
        };
        """),
    "reverse": code("""
        class Solution {
            reverseWords(s) {
                console.log("debugging output does not matter");
                return s.trim().split(/\\s+/).reverse().join(" ");
            }
        }
        """),
    "transpose": code("""
        function transpose(matrix) {
            return matrix[0].map((_, j) => matrix.map((row) => row[j]))
        }
        """),
    "average": "const average = (nums) => nums.reduce((a, b) => a + b, 0) / nums.length;\n",
    "sorted": "const isSorted = (nums) => nums.every((x, i) => i === 0 || nums[i - 1] <= x);\n",
    "first": code("""
        function firstAbove(nums, x) {
            for (const v of nums) if (v > x) return v;   // undefined when there is none: null, as in JSON
        }
        """),
    "twice": "const twice = (x) => 2 * x;\n",
}
JAVASCRIPT_WRONG = {
    "exits": ("twice", "const twice = (x) => process.exit(0);\n", "EXITED_EARLY", "exited 0"),
    "wrong": ("sorted", "const isSorted = (nums) => false;\n", "WRONG_ANSWER", "test 0: expected true, got false"),
}


def call(cid: str, language: str, completion: str, problem: tuple[str, list[tuple[str, str]]],
         **fields) -> reward_pb2.Candidate:
    function, tests = problem
    return reward_pb2.Candidate(id=cid, code=reward_pb2.CodeTask(
        language=language, completion=completion, function_name=function,
        io_tests=[reward_pb2.IOTest(stdin=stdin, expected_stdout=out) for stdin, out in tests], **fields))


RIGHT = {"python": PYTHON, "cpp": CPP, "java": JAVA, "javascript": JAVASCRIPT}
WRONG = {"python": PYTHON_WRONG, "cpp": CPP_WRONG, "java": JAVA_WRONG, "javascript": JAVASCRIPT_WRONG}
EXTRA_PROBLEMS = {"wide": WIDE}
FIRST_FAILURE = (PAIR[0], [PAIR[1][0], ("[1, 2]\n3", "[1, 0]"), ('[1, "a"]\n5', "[0, 0]")])   # pass, wrong, error
PYTHON_EXTRAS = [
    call("python/imports", "python", code("""
        class Solution:
            def twice(self, x):   # LiveCodeBench's import block: no imports needed, recursion up to 50000
                memo = defaultdict(int)
                heap = [x]
                heappush(heap, x)
                def depth(n):
                    return 0 if n == 0 else 1 + depth(n - 1)
                return heap[0] * 2 + depth(10_000) - 10_000 + memo[0] + int(inf > 0) - 1
        """), TWICE),
    call("python/object-argument", "python", "def count(d, k):\n    return len(d) + k\n",
         ("count", [('{"a": 1, "b": [2]}\n1', "3")])),
    call("python/first-failure", "python", PYTHON["pair"], FIRST_FAILURE),
    call("python/per-test", "python", PYTHON["pair"], FIRST_FAILURE, run_all_tests=True),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    candidates = [call(f"{language}/{name}", language, solution, PROBLEMS[name])
                  for language, solutions in RIGHT.items() for name, solution in solutions.items()]
    candidates += [call(f"{language}/{name}", language, solution, (PROBLEMS | EXTRA_PROBLEMS)[problem])
                   for language, wrong in WRONG.items() for name, (problem, solution, _, _) in wrong.items()]
    candidates += PYTHON_EXTRAS
    with grpc.insecure_channel(server_address) as channel:
        reply = reward_pb2_grpc.RewardServiceStub(channel).Score(reward_pb2.ScoreRequest(candidates=candidates),
                                                                 timeout=600)
    return {result.id: result for result in reply.results}


@pytest.mark.parametrize("cid", [f"{language}/{name}" for language, solutions in RIGHT.items() for name in solutions])
def test_right_solutions_pass(results, cid: str) -> None:
    result = results[cid]
    assert verdict_name(result) == "PASS", result
    assert result.reward == 1.0


@pytest.mark.parametrize(("cid", "verdict", "detail"), [
    (f"{language}/{name}", verdict, detail)
    for language, wrong in WRONG.items() for name, (_, _, verdict, detail) in wrong.items()])
def test_wrong_solutions_fail_by_lcb_rules(results, cid: str, verdict: str, detail: str) -> None:
    result = results[cid]
    assert verdict_name(result) == verdict, result
    assert detail in result.detail, result.detail
    assert result.reward == 0.0


def test_the_judges_environment_is_supplied(results) -> None:
    for cid in ("python/imports", "python/object-argument"):
        assert verdict_name(results[cid]) == "PASS", results[cid]


def test_first_failing_test_decides_and_each_test_has_its_verdict(results) -> None:
    first = results["python/first-failure"]
    assert verdict_name(first) == "WRONG_ANSWER" and first.detail.startswith("test 1: expected [1, 0]"), first
    per_test = results["python/per-test"]
    assert [verdict_name(t) for t in per_test.tests] == ["PASS", "WRONG_ANSWER", "RUNTIME_ERROR"], per_test
    assert verdict_name(per_test) == "WRONG_ANSWER"


@pytest.fixture
def stub(server_address: str):
    with grpc.insecure_channel(server_address) as channel:
        yield reward_pb2_grpc.RewardServiceStub(channel)


@pytest.mark.parametrize(("language", "completion", "problem", "detail"), [
    ("cpp", "int* firstAbove(vector<int> v, int x) { return nullptr; }\n", FIRST_ABOVE,
     "test 1: the cpp call harness cannot take null values"),
    ("javascript", "const twice = (x) => 2n * BigInt(x);\n",
     ("twice", [("4611686018427387904", "9223372036854775808")]), "cannot take bigint, long values"),
    ("java", "class Solution { int f(Object[] a) { return 0; } }\n", ("f", [('[1, "a"]', "0")]),
     "cannot take mixed_list values"),
    ("bash", "twice() { echo $((2 * $1)); }\n", TWICE, "bash has no call-based harness"),
    ("python", PYTHON["twice"], ("twice", [("[1, 2", "0")]), "test 0: argument 1 is not JSON"),
    ("python", PYTHON["twice"], ("twice", [("1", "'one'")]), "test 0: the expected value is not JSON"),
])
def test_tests_a_harness_cannot_pose_are_infra(stub, language: str, completion: str, problem, detail: str) -> None:
    reply = stub.Score(reward_pb2.ScoreRequest(candidates=[call("x", language, completion, problem)]), timeout=120)
    [result] = reply.results
    assert verdict_name(result) == "INFRA_UNSUPPORTED_TEST", result
    assert detail in result.detail, result.detail
    assert not result.HasField("reward")


@pytest.mark.parametrize(("task", "field"), [
    (reward_pb2.CodeTask(language="python", completion="x", function_name="two-sum",
                         io_tests=[reward_pb2.IOTest(stdin="1", expected_stdout="1")]), "code.function_name"),
    (reward_pb2.CodeTask(language="python", completion="x", function_name="f", tests="assert True"),
     "code.function_name"),
    (reward_pb2.CodeTask(language="python", completion="x", function_name="f",
                         io_tests=[reward_pb2.IOTest(stdin="1", expected_stdout="1")],
                         checker=reward_pb2.Checker(language="python", source="exit(0)")), "code.checker"),
])
def test_malformed_call_based_requests_name_the_field(stub, task: reward_pb2.CodeTask, field: str) -> None:
    request = reward_pb2.ScoreRequest(candidates=[reward_pb2.Candidate(id="ok", code=task)])
    with pytest.raises(grpc.RpcError) as info:
        stub.Score(request, timeout=30)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details().startswith(f"candidates[0].{field}:"), info.value.details()
