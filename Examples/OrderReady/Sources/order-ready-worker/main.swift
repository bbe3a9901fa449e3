import ActiondKit
import OrderReady

// A team's own actiond: every command (migrate, categories, submit, work, report, rebuild,
// dead-letters, demo, bench, db), with ORDER_READY beside the built-in handlers.
await Actiond.main(handlers: [OrderReadyHandler()])
