/// The task executor that background work should prefer, for the current task and the tasks
/// it starts through ``WorkTracker``.
///
/// Swift's unstructured tasks do not inherit a task executor preference; task-locals they do.
/// A simulation sets this to ``MainQueueTaskExecutor/shared`` so that every job the library
/// starts runs in one serial order; apps leave it `nil` and get Swift's global executor.
public enum ExecutorPreference {
  /// The executor to prefer; `nil` for none.
  @TaskLocal public static var current: (any TaskExecutor)?
}
