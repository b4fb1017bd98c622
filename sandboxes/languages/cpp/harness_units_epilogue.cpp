(), reward_tests_status_{0}).value); }
