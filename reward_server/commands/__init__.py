"""One module per `reward-server` subcommand, each with `add_parser(subparsers)` (eval and loadtest live with
their packages)."""
