// The program's side's codec, compiled once per problem (docs/guards.md, "Two processes"): a class of its own.
@@codec@@
