package reward_tests_
import {entry}
