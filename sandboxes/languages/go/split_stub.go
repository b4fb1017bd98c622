func @@entry@@(@@params@@) @@ret@@ {
	var rsResult @@ret@@
	rsCall(&rsResult, @@pointers@@)
	return rsResult
}

// ---- split_wire.go ----
@@codec@@
var rsUnsupported = "@@unsupported@@"
var rsCalls = os.NewFile(3, "calls")
var rsReplies = bufio.NewReader(os.NewFile(4, "replies"))

// rsCall sends the arguments (pointers to them) across and sets *result to what comes back; the arguments the
// function changed are changed here too, as slices and maps are shared in Go.
func rsCall(result interface{}, arguments ...interface{}) {
	call := []byte(fmt.Sprintf("C%d:", len(arguments)))
	func() {
		defer func() {
			if cannot, ok := recover().(rsCannot); ok {   // the benchmark's argument, not the program's doing
				fmt.Fprintln(os.Stderr, rsUnsupported+string(cannot))
				os.Exit(1)
			}
		}()
		for _, argument := range arguments {
			call = rsPut(call, reflect.ValueOf(argument).Elem())
		}
	}()
	_, err := rsCalls.Write(call)
	tag := byte(0)
	if err == nil {
		tag, err = rsReplies.ReadByte()
	}
	if err != nil {
		panic("the program ended during a call")
	}
	switch tag {
	case 'R':
		reflect.ValueOf(result).Elem().Set(rsTake(rsReplies, reflect.TypeOf(result).Elem()))
		if rsByte(rsReplies) != 'l' || rsCount(rsReplies) != len(arguments) {
			panic("the program's reply does not list the arguments")
		}
		for _, argument := range arguments {
			mine, after := reflect.ValueOf(argument).Elem(), rsTake(rsReplies, reflect.TypeOf(argument).Elem())
			if mine.Kind() == reflect.Slice {
				reflect.Copy(mine, after)
			} else if mine.Kind() == reflect.Map && !mine.IsNil() {
				for _, key := range mine.MapKeys() {
					mine.SetMapIndex(key, reflect.Value{})
				}
				for pairs := after.MapRange(); pairs.Next(); {
					mine.SetMapIndex(pairs.Key(), pairs.Value())
				}
			}
		}
	case 'X':
		text := reflect.TypeOf("")
		name, message := rsTake(rsReplies, text).String(), rsTake(rsReplies, text).String()
		panic("the function raised " + name + ": " + message)
	default:
		panic("the program's reply is not a value")
	}
}
// ---- end of split_wire.go ----
