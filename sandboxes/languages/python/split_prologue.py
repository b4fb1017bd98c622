import os as _rs_os; _rs_replies = _rs_os.dup(1); _rs_os.dup2(2, 1); _rs_calls = _rs_os.dup(0); _rs_os.dup2(_rs_os.open("/dev/null", _rs_os.O_RDONLY), 0)  # noqa: E501, E702, I001
