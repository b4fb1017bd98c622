
from _rs_wire import _rs_serve

_rs_serve(@@entry@@, _rs_calls, _rs_replies)
