import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import HTTPRequest
import Models
import ParsingCore
import Seams
import SyncStrategies
import Transport

extension SyncEngine {
  /// Fetches every notification since the last one seen and applies it, then the users it
  /// mentioned that the context does not know.
  ///
  /// Contacts whose connection the news show accepted are fetched too, since the backend tells
  /// a user's profile changes only to their connections. Users to fetch are saved with the
  /// cursor (`SyncMetadata.usersToFetch`), so a fetch that fails, or an engine restarted
  /// before it, is made up by the next pull.
  ///
  /// News are read relative to the self user (a member list without them drops the group), so
  /// none is applied before the backend has said who the self user is: the pull fetches them
  /// first if they are not known, and waits for a later pull if that fails.
  ///
  /// Pulls may overlap (an app may pull on a push and on coming to the foreground); a page is
  /// applied only if it starts where the client is when it arrives. A page overtaken by another
  /// pull would replay news already applied, such as a removal of the self user from a group
  /// they have since been added back to, which drops the group's unsent changes: it is set
  /// aside, and the pull asks again from the newer cursor.
  ///
  /// A page the backend worked out before it answered a change of ours may be applied after
  /// that answer: each of its notifications says its version, and news of a key older than the
  /// answer that set it leave the key as the answer set it (`SyncMetadata.awaitedNews`), as do
  /// the lists of a catch-up read before the answer.
  ///
  /// A pull cut short while the engine stays online (the connection lost, a timeout, a
  /// temporary status) is pulled again on the engine's clock, with the backoff of the
  /// `pullRetryPolicy` it was made with.
  public func pullNotifications() async {
    var readToTheEnd = false
    // A page that could not be read, or whose save the store refused, ends the pull early: its
    // news, or those after it, are not yet where the store has them.
    var failedPage = false
    // A pull that ends early after a request of it failed for something that passes by itself
    // (the connection went, a temporary status) was cut short; a page that cannot be read, or
    // a refusal, would end it the same way again.
    let temporaryFailuresBefore = temporaryFetchFailures
    fetchRetryAfter = nil
    // Whichever way the pull ends early, coming online again makes it up; cut short while
    // online, it is also pulled again on the clock.
    defer {
      if !readToTheEnd {
        if owedPull == .none { owedPull = .owed }
        if temporaryFetchFailures > temporaryFailuresBefore {
          schedulePullRetry()
        }
      }
    }
    guard await knowsSelfUser() else { return }
    let userVersions = self.userVersions
    var hasMore = true
    var caughtUp = false
    // Where this pull read from before: a page that leads back there would be read again.
    var earlier: Set<UUID> = []
    while hasMore {
      hasMore = false
      let since = await stack.sync.perform { $0.syncMetadata.lastNotificationID }
      let readBefore = earlier
      guard let response = await fetch(downstream.notifications(since: since)) else { return }
      let downstream = self.downstream
      let result = await stack.sync.perform { context -> Result<PageOutcome, SyncProblem> in
        // Another pull applied news while this page was on its way.
        guard context.syncMetadata.lastNotificationID == since else {
          return .success(.overtakenByPull)
        }
        var dropped: [DroppedChange] = []
        do {
          let news = try downstream.readNotifications(
            response, since: since, earlier: readBefore)
          let applied = downstream.apply(news, since: since, in: context)
          dropped = applied.droppedChanges
          // The cursor is saved with what it covers: a restart resumes right after it, owing
          // the fetches of the users its news named.
          context.syncMetadata.lastNotificationID = applied.lastID
          context.syncMetadata.usersToFetch.formUnion(
            applied.unknownUsers.union(applied.acceptedContacts))
          // Read to the end: the news of every answer at or before the page's version were in it.
          if !applied.hasMore {
            context.syncMetadata.forgetAwaitedNews(through: response.serverVersion?.rawValue)
          }
          // Read to the end: a group an earlier catch-up could not settle, whose creation was
          // answered and whose news did not come, is settled only by lists read now.
          let owesCatchUp =
            !applied.hasMore && !downstream.confirmCreatedGroups(in: context).isEmpty
          let saved = Result { () throws(SaveError) in try context.save() }
          // A fetch read before these news, or before an acceptance, tells of an older profile.
          switch saved {
          case .failure(.invalid):
            break  // The save rolled the news back.
          case .success, .failure(.store):
            // A store's refusal keeps the news in the context for its next save.
            userVersions.hear(
              applied.updatedUsers.union(applied.acceptedContacts), at: response.serverVersion)
          }
          _ = try saved.get()
          return .success(.applied(applied, owesCatchUp: owesCatchUp))
        } catch let error as DownstreamError {
          // Thrown while the page was read, before anything of it was applied.
          return .failure(.downstream(error))
        } catch let error as SaveError {
          return .success(.notSaved(FailedNewsSave(error, dropped: dropped)))
        } catch {
          context.rollback()
          return .failure(.save(.store("\(error)")))
        }
      }
      // Where to catch up from, and why, when this page calls for it.
      var catchUpFrom: (stale: UUID?, reason: String)?
      switch result {
      case .success(.overtakenByPull):
        hasMore = true
      case .success(.notSaved(let failure)):
        report(failure)
        failedPage = true
      case .success(.applied(let applied, let owesCatchUp)):
        if let since { earlier.insert(since) }
        hasMore = applied.hasMore
        onEvent?(.notifications(count: applied.count, lastID: applied.lastID))
        if !applied.unreadable.isEmpty {
          report(.downstream(.unreadableElements(.getNotifications, applied.unreadable)))
        }
        reportDropped(applied.droppedChanges)
        if owesCatchUp, !caughtUp {
          catchUpFrom = (applied.lastID, "a group created here may have left without news")
        }
      case .failure(.downstream(.unknownSince)) where !caughtUp:
        // The backend forgot where we were: catch up with what it holds now, then read the
        // news from its newest. A backend that forgets that too is not caught up with again
        // in this pull, which would ask for ever.
        catchUpFrom = (since, "the backend forgot the notifications since the cursor")
      case .failure(let problem):
        report(problem)
        failedPage = true
      }
      guard let (stale, reason) = catchUpFrom else { continue }
      guard await catchUp(from: stale, because: reason) else { return }
      caughtUp = true
      hasMore = true
    }
    readToTheEnd = !failedPage
    // Set before the fetches below, during which another pull may read to the end and clear it.
    if readToTheEnd {
      owedPull = .none
      pullsCutShort = 0
    }
    await fetchOwedUsers()
  }

  /// Pulls again after `pullRetryPolicy`'s backoff, or later if a fetch's answer asked for a
  /// longer `Retry-After`, once the pull that just ended was cut short while the engine is
  /// running and online, unless a pull again is already set or the policy's attempts are spent
  /// (then coming online makes it up).
  ///
  /// Like an upstream backoff, the wait is a plain task on the engine's clock, not enrolled
  /// work; ``settle(advancing:timeout:quietPeriod:)`` waits it out.
  private func schedulePullRetry() {
    let retryAfter = fetchRetryAfter
    fetchRetryAfter = nil
    guard isRunning, isOnline, pullRetryTimer == nil else { return }
    pullsCutShort += 1
    guard pullsCutShort < pullRetryPolicy.maxAttempts else { return }
    let wait = pullRetryPolicy.delay(
      afterAttempt: pullsCutShort, unit: random.unitInterval(), retryAfter: retryAfter)
    let attempt = pullsCutShort
    let task = timer(after: wait) { $0.pullRetryWokeUp(attempt: attempt) }
    pullRetryTimer = (attempt, time.now() + wait, task)
  }

  /// Pulls again now if the backoff of a pull cut short has ended, without waiting for its
  /// timer's task, which may have started to sleep on the clock only after it moved.
  func pullIfRetryIsDue() {
    guard let timer = pullRetryTimer, time.now() >= timer.at else { return }
    timer.task.cancel()
    pullRetryWokeUp(attempt: timer.attempt)
  }

  /// Pulls again for the timer set after `attempt` pulls cut short, unless settling pulled
  /// for it already.
  private func pullRetryWokeUp(attempt: Int) {
    guard pullRetryTimer?.attempt == attempt else { return }
    pullRetryTimer = nil
    guard owedPull != .none, isRunning, isOnline else { return }
    tracker.run("pull again after one was cut short") { [weak self] in
      await self?.pullNotifications()
    }
  }

  /// How a pull that a lost connection or a briefly unavailable backend cut short, while the
  /// engine stays online, is pulled again: up to six pulls in all, two seconds apart at first and
  /// doubling to a minute, with a fifth of jitter.
  public static let defaultPullRetryPolicy = RetryPolicy(
    maxAttempts: 6, baseDelay: .seconds(2), maxDelay: .seconds(60), jitter: 0.2)

  /// The id of the last notification applied, as the sync context keeps it (and saves it, so a
  /// restarted engine resumes after it).
  public var lastNotificationID: UUID? {
    get async { await stack.sync.perform { $0.syncMetadata.lastNotificationID } }
  }

  /// Whether the sync context knows the self user, after fetching them if it did not.
  private func knowsSelfUser() async -> Bool {
    if await stack.sync.perform({ $0.selfUser != nil }) { return true }
    await fetchSelfUser()
    return await stack.sync.perform { $0.selfUser != nil }
  }

  /// How many times a catch-up asks for the self user's profile while news of them keep
  /// overtaking it, before it is cut short.
  static let selfFetchesPerCatchUp = 3

  /// Fetches the self user's profile and applies it, unless news of them or a later fetch came
  /// first.
  ///
  /// News of the self user (a rename on another device) or a later fetch applied while this one
  /// was on its way make its profile older than what the context holds, and the news bring what
  /// changed since. Keys an answer of this device set after the profile was read keep the
  /// answer's values (`DownstreamSync.applySelfUser(_:in:)`).
  ///
  /// Returns what became of the fetch; a failure is reported.
  @discardableResult
  func fetchSelfUser() async -> FetchResult {
    let downstream = self.downstream
    let userVersions = self.userVersions
    return await fetchAndApply(downstream.selfUser) {
      (response, context) throws(DownstreamError) in
      if let me = context.selfUser {
        guard userVersions.claim(me.id, readAt: response.serverVersion) else { return false }
      }
      try downstream.applySelfUser(response, in: context)
      return true
    }
  }

  /// Catches up with what the backend holds now, from `stale`, the cursor (which the backend
  /// forgot, or whose news cannot tell of a group created here); `false` if it was cut short.
  ///
  /// It applies the self user, every connection and every conversation, then from the news the
  /// backend still holds what the lists cannot tell (messages, which the API keeps nowhere else,
  /// and groups created here that the lists leave out); the users they name are owed a fetch.
  /// The cursor moves to the newest notification, asked for first, so that no news made while
  /// the lists were read is missed, and the lists are read at that notification's version:
  /// what an answer of this device set after it keeps the answer's values.
  private func catchUp(from stale: UUID?, because reason: String) async -> Bool {
    logger.warning("\(reason): catching up")
    // The self user's renames on other devices may be in the forgotten news too, so their
    // profile must be read; one that news overtook is asked for again, since what the news
    // told need not cover every key.
    var selfFetch = FetchResult.skipped
    for _ in 0..<Self.selfFetchesPerCatchUp where selfFetch == .skipped {
      selfFetch = await fetchSelfUser()
    }
    guard selfFetch == .applied else {
      if selfFetch == .skipped {
        logger.debug("news overtook the self user's profile each time a catch-up read it")
      }
      return false
    }
    switch await readListsAndApply(from: stale) {
    case .applied, .caughtUpElsewhere: return true
    case .unread, .notSaved: return false
    }
  }

  /// What became of one reading of a catch-up's lists.
  private enum ListsOutcome: Sendable {
    /// The lists and the news were applied and saved, with what that did.
    case applied(CatchUpApplication, KeptNewsApplication)
    /// Another pull caught up while these lists were read; nothing was applied.
    case caughtUpElsewhere
    /// A list or the news did not come or could not be read (reported).
    case unread
    /// Their save failed (reported).
    case notSaved(FailedNewsSave)
  }

  /// Reads the newest notification's id, the lists and the news the backend still holds, and
  /// applies them.
  private func readListsAndApply(from stale: UUID?) async -> ListsOutcome {
    let downstream = self.downstream
    // The backend applied every answer applied here before the lists went out before it reads
    // them, so the lists are read at that answer's version or later.
    let answeredBefore = await stack.sync.perform { $0.syncMetadata.latestAwaitedVersion }
    guard let newest = await fetch(downstream.lastNotification) else { return .unread }
    let last: UUID?
    do {
      last = try downstream.readLastNotificationID(newest)
    } catch {
      report(.downstream(error))
      return .unread
    }
    guard
      let connections = await fetchAllPages(
        downstream.connections(after:),
        read: { response, _ throws(DownstreamError) in
          try downstream.readConnections(response)
        }),
      let conversations = await fetchAllPages(
        downstream.conversations(after:),
        read: { response, _ throws(DownstreamError) in
          try downstream.readConversations(response)
        }),
      let kept = await fetchKeptNews(through: last)
    else { return .unread }
    let outcome = await stack.sync.perform { context -> ListsOutcome in
      guard context.syncMetadata.lastNotificationID == stale else { return .caughtUpElsewhere }
      // Versions only grow: a backend whose newest is older than such an answer started again
      // without the history the client awaits news of.
      if let answeredBefore, let read = newest.serverVersion?.rawValue, read < answeredBefore {
        context.syncMetadata.forgetAwaitedNews(through: .max)
      }
      let complete = connections.complete && conversations.complete
      let applied = downstream.applyHeldState(
        connections: connections.items, conversations: conversations.items,
        complete: complete, readAt: newest.serverVersion, in: context)
      let news = downstream.applyKeptNews(
        kept, listed: Set(conversations.items.map(\.id)), complete: complete, in: context)
      context.syncMetadata.lastNotificationID = last
      context.syncMetadata.usersToFetch.formUnion(applied.namedUsers.union(news.unknownUsers))
      // The cursor moves to the newest notification: answers at or before its version had their
      // news there, and the lists read after it hold their keys.
      context.syncMetadata.forgetAwaitedNews(through: newest.serverVersion?.rawValue)
      do throws(SaveError) {
        try context.save()
      } catch {
        return .notSaved(
          FailedNewsSave(error, dropped: applied.droppedChanges + news.droppedChanges))
      }
      return .applied(applied, news)
    }
    switch outcome {
    case .applied(let applied, let news):
      onEvent?(
        .caughtUp(
          lastID: last,
          droppedConversations: applied.droppedConversations.union(news.droppedConversations)))
      reportDropped(applied.droppedChanges + news.droppedChanges)
    case .notSaved(let failure):
      report(failure)
    case .caughtUpElsewhere, .unread:
      break
    }
    return outcome
  }

  /// Reports a save of news that failed, and the changes those news dropped with their groups
  /// when they stay dropped.
  private func report(_ failure: FailedNewsSave) {
    report(.save(failure.error))
    reportDropped(failure.droppedChanges)
  }

  /// Tells the log and the app of the unsent changes that went with conversations the self user
  /// is no longer in.
  private func reportDropped(_ changes: [DroppedChange]) {
    for change in changes {
      logger.warning("\(change)")
      onEvent?(.changeDropped(change))
    }
  }

  /// The notifications the backend still holds, oldest first, up to and including `last`;
  /// `nil` if a page did not come or could not be read (reported).
  ///
  /// A catch-up reads them for what its lists cannot tell (see
  /// `DownstreamSync.applyKeptNews(_:listed:complete:in:)`): the backend forgot the cursor, not
  /// all its news.
  private func fetchKeptNews(through last: UUID?) async -> [NotificationPayload]? {
    guard let last else { return [] }
    let downstream = self.downstream
    return await fetchAllPages(downstream.notifications(since:), through: last) {
      response, since throws(DownstreamError) in
      try downstream.readNotifications(response, since: since)
    }?.items
  }

  /// Every item of a paged list, or those up to and including the one whose cursor is `last`
  /// when given, with whether every one could be read (those that could not are reported);
  /// `nil` if a page did not come, could not be read, or said the list had more without moving
  /// past where it started (reported).
  ///
  /// `read` reads a page given the cursor it was asked from.
  private func fetchAllPages<Item: PagedPayload>(
    _ endpoint: (UUID?) -> Endpoint, through last: UUID? = nil,
    read: (TransportResponse, UUID?) throws(DownstreamError) -> Page<Item>
  ) async -> (items: [Item], complete: Bool)? {
    var items: [Item] = []
    var complete = true
    var start: UUID?
    // Every cursor asked from: a page that leads back to one would lead round again.
    var asked: Set<UUID> = []
    while true {
      let request = endpoint(start)
      guard let response = await fetch(request) else { return nil }
      let page: Page<Item>
      do {
        page = try read(response, start)
      } catch {
        report(.downstream(error))
        return nil
      }
      if !page.failures.isEmpty {
        complete = false
        report(.downstream(.unreadableElements(request.route, page.unreadableElements)))
      }
      if let last, let end = page.elements.firstIndex(where: { $0.cursor == last }) {
        return (items + page.elements[...end], complete)
      }
      items += page.elements
      guard page.hasMore else { return (items, complete) }
      guard let next = page.cursor, asked.insert(next).inserted else {
        report(.downstream(.pageDidNotAdvance(request.route, after: start)))
        return nil
      }
      start = next
    }
  }

  /// Fetches the users the sync context owes a fetch (`SyncMetadata.usersToFetch`), as many
  /// at once as the backend answers; those an answer settles are owed no more, the others wait
  /// for the next pull.
  private func fetchOwedUsers() async {
    let owed = await stack.sync.perform { $0.syncMetadata.usersToFetch }
    for batch in downstream.userBatches(owed) {
      guard case .getUsers(let ids) = batch else { continue }
      // Without a response the backend is out of reach: the rest waits for the next pull.
      guard await fetchUsers(batch, asking: Set(ids)) else { return }
    }
  }

  /// Sends `batch`, a `GET /users` call for `ids`, and applies the answer; `false` if no
  /// response came.
  private func fetchUsers(_ batch: Endpoint, asking ids: Set<UUID>) async -> Bool {
    let downstream = self.downstream
    let userVersions = self.userVersions
    // Pulls may overlap, so two fetches of one user may be out at once, their answers
    // overtaking each other: the profile read at the later version is kept (see UserVersions).
    let result = await fetchAndApply(batch) {
      (response, context) throws(DownstreamError) in
      let version = response.serverVersion
      var answered: Set<UUID> = []
      var settled: Set<UUID> = []
      try downstream.applyUsers(response, in: context) { id in
        answered.insert(id)
        guard userVersions.claim(id, readAt: version) else { return false }
        settled.insert(id)
        return true
      }
      // The backend has no profile to give of a user it left out, so this answer settles
      // them too, unless news read at a later version came since.
      for id in ids.subtracting(answered) where userVersions.claim(id, readAt: version) {
        settled.insert(id)
      }
      context.syncMetadata.usersToFetch.subtract(settled)
      return true
    }
    return result != .noResponse
  }

  /// What became of a fetch whose answer is applied to the sync context.
  enum FetchResult {
    /// No response came (reported), or it was a 401.
    case noResponse
    /// The answer was applied and saved.
    case applied
    /// The answer was left out: an answer or news applied while it was out are newer.
    case skipped
    /// The answer could not be applied or saved; rolled back and reported.
    case failed
  }

  /// Fetches `endpoint`, applies its answer to the sync context with `apply` (which says
  /// whether it applied it or left it out), then saves, and says what became of it.
  ///
  /// A failure to read or save is reported (see `ModelContext.save()` for what a failed save
  /// keeps).
  private func fetchAndApply(
    _ endpoint: Endpoint,
    apply: @escaping @Sendable (TransportResponse, ModelContext) throws(DownstreamError) -> Bool
  ) async -> FetchResult {
    guard let response = await fetch(endpoint) else { return .noResponse }
    let outcome = await stack.sync.perform { context -> Result<Bool, SyncProblem> in
      let applied: Bool
      do throws(DownstreamError) {
        applied = try apply(response, context)
      } catch {
        // Thrown while the answer was read, before anything of it was applied.
        return .failure(.downstream(error))
      }
      do throws(SaveError) {
        try context.save()
        return .success(applied)
      } catch {
        return .failure(.save(error))
      }
    }
    switch outcome {
    case .success(let applied): return applied ? .applied : .skipped
    case .failure(let problem):
      report(problem)
      return .failed
    }
  }

  /// Sends a downstream request, letting the transport retry it (it is an idempotent GET), and
  /// reports it; `nil` if no response came, or a 401 (which pauses the engine).
  private func fetch(_ endpoint: Endpoint) async -> TransportResponse? {
    let request: HTTPRequest
    do {
      request = try endpoint.request()
    } catch {
      logger.error("cannot build \(endpoint.route): \(error)")
      return nil
    }
    do {
      let response = try await transport.send(
        request, options: SendOptions(retriesTemporaryFailures: true))
      onEvent?(.request(request, .status(response.status)))
      if response.responseClass == .temporary {
        temporaryFetchFailures += 1
        if let asked = response.retryAfter?.delay(from: Date()) {
          fetchRetryAfter = max(fetchRetryAfter ?? .zero, asked)
        }
      }
      // Without credentials nothing can be read: it is a pause, not a problem to report.
      guard response.responseClass != .unauthorized else {
        noteAuthentication(response.responseClass)
        return nil
      }
      return response
    } catch {
      onEvent?(.request(request, .failed(error)))
      if [.temporary, .expired].contains(error.responseClass) { temporaryFetchFailures += 1 }
      noteConnectivity(after: error)
      return nil
    }
  }
}

/// A save of applied news (a page, a catch-up) that failed: why, and the unsent changes the
/// news dropped with their groups, which the app must hear of if they stay dropped.
///
/// A store's refusal keeps what the context holds for its next save, drops included (otherwise a
/// rename dropped so would be gone without a word); broken rules were rolled back by the save,
/// and their drops with them.
private struct FailedNewsSave: Error {
  let error: SaveError
  let droppedChanges: [DroppedChange]

  init(_ error: SaveError, dropped: [DroppedChange]) {
    self.error = error
    if case .store = error { droppedChanges = dropped } else { droppedChanges = [] }
  }
}

/// What became of a page of news a pull fetched.
private enum PageOutcome: Sendable {
  /// It was applied; the pull then owes a catch-up if it read to the end and a group created
  /// here waits to be confirmed (see `SyncMetadata.createdGroupsToConfirm`).
  case applied(NotificationApplication, owesCatchUp: Bool)
  /// Another pull applied news while it was out: it starts before the cursor.
  case overtakenByPull
  /// It was applied but its save failed.
  case notSaved(FailedNewsSave)
}
