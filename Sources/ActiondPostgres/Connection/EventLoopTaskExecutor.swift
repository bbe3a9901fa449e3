import NIOCore

/// A Swift `TaskExecutor` that runs jobs on one NIO event loop. A task that prefers it runs
/// its code on the thread that reads its connection's replies, so each awaited query resumes
/// there instead of waking a thread of the global pool (with six round trips per batch,
/// thread switches were a visible share of a worker's CPU in perf). Written here because the
/// SwiftNIO of the package mirror makes event loops serial executors, not task executors.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
