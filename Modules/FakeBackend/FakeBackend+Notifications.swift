import CourierAPI
import EventParsing
import Foundation
import JSON
import ParsingCore

/// The fake's handler for the notification stream.
extension FakeBackend {
  static func getNotifications(since: UUID?, size: Int, _ stream: [NotificationPayload])
    -> Answer
  {
    if let since, !stream.contains(where: { $0.id == since }) {
      return .notFound("notification \(since.lowercasedText)")
    }
    switch page(stream, id: \.id, paging: Paging(size: size, start: since)) {
    case .failure(let missing): return missing.answer
    case .success(let (items, hasMore)):
      return .ok(.notifications(Page(elements: items, failures: [], hasMore: hasMore)))
    }
  }
}
