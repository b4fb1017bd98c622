main = rewardTestsMain_ >> RewardSplitIO_.hPutStr RewardSplitIO_.stderr "{marker}\n"
