import Models
import Seams

/// Which objects an answer to a change of ours set while a fetch was out, so that what the
/// backend worked out before that answer (a page of news, the self user's profile) does not put
/// back values older than the answer's.
///
/// The backend applies a change before it answers, but the answer may come back after a fetch
/// sent later, and be applied here before that fetch's older view is read. Answers are numbered
/// as they are applied; a fetch notes the number when it goes out, and is overtaken if an answer
/// numbered after it concerns an object it tells of. Numbers are kept only while a fetch is out.
final class AnswerOrder: Sendable {
  /// A fetch that is out: the number of answers applied when it went.
  struct Fetch: Sendable {
    fileprivate let mark: UInt64
  }

  private struct State {
    /// How many answers were applied while fetches were out.
    var applied: UInt64 = 0
    /// For each object, the number of the last answer about it applied while fetches were out.
    var answered: [ObjectReference: UInt64] = [:]
    /// How many fetches are out with each mark.
    var out: [UInt64: Int] = [:]
  }

  private let state = Locked(State())

  /// Notes a fetch as it goes out; end it with ``finish(_:)`` whatever becomes of it.
  func send() -> Fetch {
    state.withLock { state in
      state.out[state.applied, default: 0] += 1
      return Fetch(mark: state.applied)
    }
  }

  /// Records that answers about `objects` were applied; call it in the turn of the context
  /// that applies them.
  func answered(_ objects: some Sequence<ObjectReference>) {
    state.withLock { state in
      guard !state.out.isEmpty else { return }
      for object in objects {
        state.applied += 1
        state.answered[object] = state.applied
      }
    }
  }

  /// Whether an answer about one of `objects` was applied after `fetch` went out, so that what
  /// it brings about them may be older than what the context holds.
  ///
  /// `objects` is worked out only if some answer was applied since: usually none was.
  func isOvertaken(_ fetch: Fetch, about objects: @autoclosure () -> Set<ObjectReference>) -> Bool {
    state.withLock { state in
      guard state.applied > fetch.mark else { return false }
      return objects().contains { state.answered[$0, default: 0] > fetch.mark }
    }
  }

  /// Ends `fetch`; once none is out, the numbers are forgotten.
  func finish(_ fetch: Fetch) {
    state.withLock { state in
      state.out[fetch.mark, default: 1] -= 1
      if state.out[fetch.mark] == 0 { state.out[fetch.mark] = nil }
      if state.out.isEmpty { state.answered = [:] }
    }
  }
}
