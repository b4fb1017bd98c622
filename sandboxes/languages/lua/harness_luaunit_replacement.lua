local reward_tests_status_ = lu.LuaUnit.run()
if reward_tests_status_ ~= 0 then os.exit(reward_tests_status_) end
