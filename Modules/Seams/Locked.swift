#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value that any thread or task may read and change, one at a time, under a lock.
///
/// It is the project's one lock: every piece of shared mutable state sits in a `Locked`, so there
/// is one place to reason about locking. It is backed by a `pthread_mutex_t`, which
/// ThreadSanitizer sees (on Linux it does not see `Synchronization.Mutex`, and reports correctly
/// locked state as a race).
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// Never `await` or call back into code that may take the same lock inside `withLock`: the lock
/// is not reentrant, and holding it across a suspension would block a thread of the pool.
public struct Locked<Value> {
  private let storage: LockedStorage<Value>

  /// Creates a lock guarding `value`.
  public init(_ value: Value) {
    storage = LockedStorage.make(value)
  }

  /// Runs `body` with exclusive access to the value and returns what it returns.
  public func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try storage.withLock(body)
  }
}

extension Locked: @unchecked Sendable where Value: Sendable {}

extension Locked where Value: Sendable {
  /// A copy of the value, read under the lock.
  public var value: Value { withLock { $0 } }
}

/// The value and its mutex in one allocation, so the mutex has a stable address.
final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
  static func make(_ value: Value) -> LockedStorage<Value> {
    let buffer = create(minimumCapacity: 1) { _ in value }
    let storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
    storage.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    }
    return storage
  }

  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value.pointee)
    }
  }

  // The buffer destroys its header (the value) itself; the mutex is ours to destroy.
  deinit {
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }
}
