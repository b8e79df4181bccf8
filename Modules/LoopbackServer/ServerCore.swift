import Foundation
import Seams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the server's threads share: the listener, the open connections, the running handlers,
/// and how many threads are alive.
final class ServerCore: Sendable {
  private struct State {
    var stopping = false
    var connections: Set<Socket> = []
    var handlers: [Int: Task<Void, Never>] = [:]
    var nextHandler = 0
    var liveThreads = 0
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
  }

  let listener: Listener
  let limits: ServerLimits
  let handler: LoopbackServer.Handler
  private let state = Locked(State())

  init(listener: Listener, limits: ServerLimits, handler: @escaping LoopbackServer.Handler) {
    self.listener = listener
    self.limits = limits
    self.handler = handler
  }

  var openConnections: Int { state.withLock { $0.connections.count } }
  var isStopping: Bool { state.withLock { $0.stopping } }

  // MARK: - Threads

  /// Starts `body` on a thread of the server, counted until it returns.
  private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
    state.withLock { $0.liveThreads += 1 }
    let thread = Thread { [self] in
      body()
      threadEnded()
    }
    thread.name = name
    thread.stackSize = 512 * 1024
    thread.start()
  }

  private func threadEnded() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.liveThreads -= 1
      guard state.liveThreads == 0, state.stopping else { return [] }
      defer { state.stopWaiters = [] }
      return state.stopWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: - Accepting

  func startAccepting() {
    spawn("courier-loopback-accept") { [self] in acceptLoop() }
  }

  private func acceptLoop() {
    defer {
      listener.socket.close()
      listener.wake.close()
    }
    var waits = [
      pollfd(fd: listener.socket.descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: listener.wake.readEnd, events: Int16(POLLIN), revents: 0),
    ]
    while !isStopping {
      let ready = poll(&waits, nfds_t(waits.count), -1)
      if ready < 0 && errno != EINTR { return }
      if isStopping { return }
      guard waits[0].revents != 0 else { continue }
      let descriptor = accept(listener.socket.descriptor, nil, nil)
      if descriptor < 0 {
        switch errno {
        case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED: continue
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
          // Out of descriptors or memory: give what is open time to finish.
          usleep(10_000)
          continue
        default: return
        }
      }
      admit(Socket(descriptor: descriptor))
    }
  }

  /// Serves a new connection on a thread of its own, or resets it when there are too many.
  private func admit(_ socket: Socket) {
    socket.closeOnExec()
    _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) & ~O_NONBLOCK)
    socket.disableNagle()
    let admitted = state.withLock { state in
      guard !state.stopping, state.connections.count < limits.maxConnections else { return false }
      state.connections.insert(socket)
      return true
    }
    guard admitted else {
      socket.resetOnClose()
      socket.close()
      return
    }
    spawn("courier-loopback-connection") { [self] in
      ConnectionLoop(socket: socket, core: self).run()
      state.withLock { _ = $0.connections.remove(socket) }
      socket.close()
    }
  }

  // MARK: - Handlers

  /// Runs the handler for `request` as a task and waits for its reply on the calling thread,
  /// which is one of the server's own; `nil` if the server is stopping.
  ///
  /// The task prefers an executor that runs its jobs on this very thread, so a handler that
  /// does not wait on anything else runs here from start to end, without a hop to Swift's pool
  /// and back; a handler that does wait resumes here when it is done waiting.
  func reply(to request: ServerRequest) -> ServerReply? {
    let executor = ThreadExecutor()
    let reply = Locked<ServerReply?>(nil)
    let handler = self.handler
    let id = state.withLock { state -> Int? in
      guard !state.stopping else { return nil }
      defer { state.nextHandler += 1 }
      state.handlers[state.nextHandler] = Task(executorPreference: executor) {
        let answer = await handler(request)
        reply.withLock { $0 = answer }
        executor.wake()
      }
      return state.nextHandler
    }
    guard let id else { return nil }
    executor.runJobs { reply.withLock { $0 != nil } }
    state.withLock { _ = $0.handlers.removeValue(forKey: id) }
    return reply.withLock { $0 } ?? .closeWithoutAnswer
  }

  // MARK: - Stopping

  /// Stops accepting, wakes every connection and cancels every handler; does not wait.
  func beginStopping() {
    let first = state.withLock { state -> Bool in
      guard !state.stopping else { return false }
      state.stopping = true
      for connection in state.connections { connection.shutDown() }
      for task in state.handlers.values { task.cancel() }
      return true
    }
    // The accepting thread may have seen `stopping` and closed the pipe already; then this
    // writes nothing, rather than into a descriptor number reused since.
    if first { listener.wake.wake() }
  }

  /// Returns once every thread of the server has ended.
  func waitUntilStopped() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state -> Bool in
        if state.liveThreads == 0 { return true }
        state.stopWaiters.append(continuation)
        return false
      }
      if done { continuation.resume() }
    }
  }
}

/// A task executor that runs its jobs on the one thread that calls ``runJobs(until:)``: a
/// connection's thread, while it waits for its handler.
private final class ThreadExecutor: TaskExecutor, Sendable {
  private let jobs = Locked<[UnownedJob]>([])
  private let ready = DispatchSemaphore(value: 0)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    ready.signal()
  }

  /// Wakes the thread running jobs, to look again whether it is done.
  func wake() {
    ready.signal()
  }

  /// Runs jobs on the calling thread, never a task's, until `done` says so; sleeps while there
  /// is nothing to run.
  func runJobs(until done: () -> Bool) {
    while !done() {
      let next = jobs.withLock { jobs in jobs.isEmpty ? nil : jobs.removeFirst() }
      if let next {
        next.runSynchronously(on: asUnownedTaskExecutor())
      } else {
        ready.wait()
      }
    }
  }
}
