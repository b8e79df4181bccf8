import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import JSON
import ParsingCore
import UserParsing

extension FuzzProperty {
  /// Every payload parser never traps; a refusal names each bad field by its key path; and a
  /// payload it reads encodes to one it reads back as the same.
  public static let payloads = FuzzProperty(name: "payloads") { bytes in
    let data = Data(bytes)
    return payloadRoundTrip(ConnectionPayload.self, data)
      ?? payloadRoundTrip(UserPayload.self, data)
      ?? payloadRoundTrip(UserUpdatePayload.self, data)
      ?? payloadRoundTrip(ConversationPayload.self, data)
      ?? payloadRoundTrip(MessagePayload.self, data)
      ?? payloadRoundTrip(NotificationPayload.self, data)
  }

  /// The payload property for one type.
  public static func payloadRoundTrip<Payload: PayloadConvertible & Equatable>(
    _ type: Payload.Type, _ data: Data
  ) -> String? {
    let payload: Payload
    do {
      payload = try Payload.parse(data)
    } catch {
      if case .invalidFields(let fields) = error {
        if fields.isEmpty { return "\(type) refused the input without naming a field" }
        if let unnamed = fields.first(where: { $0.keyPath.isEmpty }) {
          return "\(type) refused a field with no key path: \(unnamed)"
        }
      }
      return nil
    }
    do {
      let reread = try Payload.parse(payload.encoded())
      return reread == payload ? nil : "\(type) read \(payload), then \(reread) from its encoding"
    } catch {
      return "\(type) read \(payload) and refuses its own encoding: \(error)"
    }
  }
}
