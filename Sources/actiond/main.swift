import ActiondKit

// The actiond binary: the library's command line with the built-in handlers.
await Actiond.main()
