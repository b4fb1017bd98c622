func main() {
	reward_tests_main_()
	println("{marker}")
}
