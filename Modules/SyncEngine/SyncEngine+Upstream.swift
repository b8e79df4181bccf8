import Foundation
import Models
import Seams
import SyncStrategies
import Transport

extension SyncEngine {
  /// How many upstream requests an engine lets out at once unless told otherwise: more than a
  /// transport sends at once (`URLSessionTransport` sends six by default), so that it never waits
  /// for the engine, and few enough that a backlog of changes stays in the change log.
  public static let defaultMaximumRequestsInFlight = 64

  func localChangesArrived(_ objects: Set<ObjectReference>) {
    upstream.reconsider(objects)
    pump()
  }

  /// Hands every ready request to a tracked send job; at most one planning job runs at a time,
  /// and wake-ups that arrive meanwhile make it plan once more instead of each planning alone.
  func pump() {
    guard isRunning, isOnline else { return }
    guard planning == .idle else {
      planning = .planningAgain
      return
    }
    planning = .planning
    tracker.run("choose the next requests") { [weak self] in
      await self?.planAndSend()
    }
  }

  private func planAndSend() async {
    repeat {
      planning = .planning
      await startReadyRequests(now: time.now())
    } while planning == .planningAgain && isRunning && isOnline
    planning = .idle
  }

  private func startReadyRequests(now: Duration) async {
    guard isRunning, isOnline else { return }
    let upstream = self.upstream
    let room = reserveRoom()
    guard room > 0 else { return }
    // Saved before anything is sent: what the requests carry is written ahead in the change
    // log as possibly applied, so an app killed before the answers still accounts for them.
    // A save the store refused sends nothing: the requests are taken back, and wait a backoff.
    let ready = await saveInSyncContext { context in
      upstream.takeReadyRequests(room, in: context, now: now)
    } whenRefused: { ready, context in
      upstream.takeBack(ready, in: context, now: now)
      return []
    }
    send(ready, reserved: room)
  }

  /// Claims what is left of the window of requests in flight, for requests about to be taken.
  ///
  /// Two jobs taking requests at once so never let more out than the window;
  /// ``send(_:reserved:)`` gives back what was not used. `0` when the engine sends nothing new.
  private func reserveRoom() -> Int {
    guard isRunning, isOnline else { return 0 }
    let room = max(0, maximumRequestsInFlight - requestsInFlight)
    requestsInFlight += room
    return room
  }

  /// Hands each of `ready` to a tracked send job, gives back the room reserved for requests
  /// that were not ready, and wakes the engine when the earliest backoff ends.
  private func send(_ ready: [UpstreamRequest], reserved room: Int) {
    requestsInFlight -= room - ready.count
    for next in ready {
      tracker.run("send \(next.request)") { [weak self] in await self?.deliver(next) }
    }
    scheduleRetry()
  }

  /// Sends `next`; the transport never retries it, the engine does.
  private func deliver(_ next: UpstreamRequest) async {
    let result: Result<TransportResponse, TransportError>
    do {
      result = .success(try await transport.send(next.request, options: SendOptions()))
    } catch {
      result = .failure(error)
    }
    switch result {
    case .success(let response):
      onEvent?(.request(next.request, .status(response.status)))
      noteAuthentication(response.responseClass)
    case .failure(let error):
      onEvent?(.request(next.request, .failed(error)))
      noteConnectivity(after: error)
    }
    requestsInFlight -= 1
    let answer = (next.token, UpstreamOutcome(endpoint: next.endpoint, result: result))
    guard completed == nil else {
      completed?.append(answer)
      return
    }
    completed = [answer]
    tracker.run("apply responses") { [weak self] in await self?.applyCompleted() }
  }

  /// What one save of a batch of answers did: their completions, whether a creation among them
  /// owes a catch-up, and the requests taken in the same save.
  private typealias AppliedBatch = (
    completions: [UpstreamCompletion], owesCatchUp: Bool, ready: [UpstreamRequest]
  )

  /// Applies every answer that arrived since the last time in one save of the sync context: one
  /// save (and one merge into the UI context) per batch, not per answer.
  private func applyCompleted() async {
    while let batch = completed, !batch.isEmpty {
      completed = []
      let upstream = self.upstream
      let now = time.now()
      let downstream = self.downstream
      // The requests the answers let go (a dependant of an answered creation, the next change
      // of an answered key) are taken in the same save, which writes them ahead: one save per
      // batch of answers, not one for the answers and one for the requests.
      let room = reserveRoom()
      let (completions, owesCatchUp, ready) = await saveInSyncContext { context -> AppliedBatch in
        let completions = batch.map {
          upstream.complete($0.token, with: $0.outcome, in: context, now: now)
        }
        return (
          completions: completions,
          owesCatchUp: !downstream.confirmCreatedGroups(in: context).isEmpty,
          ready: upstream.takeReadyRequests(room, in: context, now: now)
        )
      } whenRefused: { applied, context in
        upstream.takeBack(applied.ready, in: context, now: now)
        return (applied.completions, applied.owesCatchUp, [])
      }
      send(ready, reserved: room)
      for completion in completions { announce(completion) }
      // A group a catch-up could not settle had its creation answered: pull, and the pull
      // catches up unless the news tell of the creation. A stopped engine sends nothing new;
      // the pull of its next start does the same.
      if owesCatchUp && isRunning {
        tracker.run("pull after a creation a catch-up could not settle") { [weak self] in
          await self?.pullNotifications()
        }
      }
      // A batch that took no room (a planning job held it while it saved) asks for one more
      // round of planning, which sees these answers; a batch with room
      // planned after them.
      if room == 0 { pump() }
    }
    completed = nil
  }

  /// Tells the app about changes the backend refused: they are errors an app must show.
  private func announce(_ completion: UpstreamCompletion) {
    switch completion {
    case .failed(let object, let failure):
      logger.error("\(object) was refused for good: \(failure.reason)")
      onEvent?(.changeRefused(object, reason: failure.reason, reverted: false))
    case .reverted(let object, let reason):
      logger.error("\(object) was reverted: \(reason)")
      onEvent?(.changeRefused(object, reason: reason, reverted: true))
    case .settled, .retrying, .unknownToken:
      break
    }
  }

  /// Goes offline when `error` says the backend is out of reach, or pauses when it says the
  /// backend does not know who asks.
  func noteConnectivity(after error: TransportError) {
    if case .network(let failure) = error, failure == .offline || failure == .cannotConnect,
      isOnline
    {
      reachability = .offline
      onEvent?(.connectivity(online: false))
    }
    noteAuthentication(error.responseClass)
  }

  /// Pauses the engine as if offline when the backend did not know who asked (a 401 a token
  /// refresh did not cure, or no token at all), and tells the app, which signs its user in
  /// again and calls ``setOnline(_:)``: every other request would be refused the same way.
  ///
  /// The app is told once per wait for sign-in, whether or not the engine was online already
  /// (a pull may be answered 401 while offline).
  func noteAuthentication(_ responseClass: ResponseClass) {
    guard responseClass == .unauthorized, !isAwaitingSignIn else { return }
    reachability = .awaitingSignIn
    logger.warning("the backend needs the user to sign in again: sync paused")
    onEvent?(.authenticationNeeded)
  }

  /// Wakes the engine when the earliest backoff ends, unless a wake-up comes sooner already.
  ///
  /// The wait is a plain task on the engine's clock, not enrolled work: a backoff that has not
  /// ended is something that will happen, not something running, so a test can settle
  /// while a retry waits (``settle(advancing:timeout:)`` moves a manual clock past it).
  func scheduleRetry() {
    guard isOnline, let at = upstream.nextRetryTime(after: time.now()) else { return }
    if let scheduled = retryTimer, scheduled.at <= at { return }
    retryTimer?.task.cancel()
    retryTimer = (at, timer(after: at - time.now()) { $0.retryWokeUp() })
  }

  private func retryWokeUp() {
    retryTimer = nil
    pump()
  }
}

extension UpstreamObjectSync {
  /// Takes up to `room` ready requests, each written ahead in `context` as it is taken.
  fileprivate func takeReadyRequests(_ room: Int, in context: ModelContext, now: Duration)
    -> [UpstreamRequest]
  {
    var ready: [UpstreamRequest] = []
    while ready.count < room, let next = nextRequest(in: context, now: now) {
      ready.append(next)
    }
    return ready
  }

  /// Takes back requests whose save the store refused, so that none of them goes.
  ///
  /// Each waits a backoff, as a request that was not sent.
  fileprivate func takeBack(_ ready: [UpstreamRequest], in context: ModelContext, now: Duration) {
    for request in ready {
      _ = complete(request.token, with: .temporary(.notSent), in: context, now: now)
    }
  }
}
