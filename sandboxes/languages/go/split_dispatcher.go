// ---- split_wire.go ----
package main

@@codec@@
// The program's side: each call read from fd 0, the function called, its result written on fd 1.
func main() {
	replies, calls := rsMoveStdout(), bufio.NewReader(os.Stdin)
	for tag, err := calls.ReadByte(); err == nil && tag == 'C'; tag, err = calls.ReadByte() {
		if _, err := replies.Write(rsServe(calls)); err != nil {
			return
		}
	}
}

func rsServe(rsIn *bufio.Reader) (reply []byte) {
	defer func() {
		if fault := recover(); fault != nil {
			reply = rsPut(rsPut([]byte("X"), reflect.ValueOf("panic")), reflect.ValueOf(fmt.Sprint(fault)))
		}
	}()
	rsCount(rsIn)
	@@decode@@
	rsResult := @@entry@@(@@names@@)
	reply = rsPut([]byte("R"), reflect.ValueOf(&rsResult).Elem())
	return rsPut(reply, reflect.ValueOf([]interface{}{@@names@@}))
}
// ---- end of split_wire.go ----
