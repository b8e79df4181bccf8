import Dispatch

/// A serial executor that runs an actor's jobs, one at a time, on a dispatch queue of its own.
///
/// Actors that let the caller choose where they run (``ActorExecution``) use it when they run on
/// their own.
public final class SerialQueueExecutor: SerialExecutor {
  private let queue: DispatchQueue
  private let marker = DispatchSpecificKey<ObjectIdentifier>()

  /// Creates an executor whose queue is called `label` in debuggers and crash reports.
  public init(label: String) {
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: marker, value: ObjectIdentifier(self))
  }

  /// Whether the calling code runs on this executor's queue.
  public var isCurrent: Bool {
    DispatchQueue.getSpecific(key: marker) == ObjectIdentifier(self)
  }

  /// Stops the program unless the calling code runs on this executor, so that an actor's
  /// `assumeIsolated` works on it.
  public func checkIsolated() {
    dispatchPrecondition(condition: .onQueue(queue))
  }

  /// Runs `job` on the queue, after the jobs enqueued before it.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}

/// Where an actor that supports it runs its work.
public enum ActorExecution: Sendable {
  /// On a serial executor of its own, concurrently with the main actor: what an app wants.
  case own
  /// On the main actor's executor, in one serial order with it: hops between the two cost no
  /// thread switch, and interleavings are the same in every run. For model-based tests and
  /// simulations.
  case mainActor

  /// The executor an actor made with this choice runs on.
  public func makeExecutor(label: String) -> ChosenExecutor {
    switch self {
    case .own: ChosenExecutor(queue: SerialQueueExecutor(label: label))
    case .mainActor: ChosenExecutor(queue: nil)
    }
  }
}

/// The executor an actor runs on, chosen when it was made.
public struct ChosenExecutor: Sendable {
  /// The executor's own queue, or `nil` when the actor runs on the main actor's executor.
  public let queue: SerialQueueExecutor?

  /// The executor, for an actor's `unownedExecutor`.
  public var unownedExecutor: UnownedSerialExecutor {
    queue?.asUnownedSerialExecutor() ?? MainActor.sharedUnownedExecutor
  }
}
