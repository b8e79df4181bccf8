import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import SyncEngine

extension SyncWorld {
  /// Takes the network away or brings it back, for the fake and the engine together.
  ///
  /// ```swift
  /// await world.setNetwork(.offline)
  /// let message = try world.write("Hello", in: chat)
  /// await world.setNetwork(.online)
  /// await world.settle()
  /// ```
  ///
  /// With `.offline` the fake fails every request at once and the engine stops sending, as an
  /// app does when the system says there is no network. With `.unresponsive` the fake holds every
  /// request until it expires while the engine, which cannot know, keeps trying. With `.online`
  /// both go back to normal and the engine sends what waited.
  public func setNetwork(_ condition: NetworkCondition) async {
    fake.network = condition
    await engine.setOnline(condition != .offline)
  }
}

extension SyncWorld {
  /// A history of the values `key` of the object `id` takes in the UI context from now on: what
  /// a screen showing it would have shown.
  ///
  /// ```swift
  /// let states = world.history(of: Message.self, id: message.id, \.deliveryState)
  /// ```
  public func history<Object: ModelObject, Value: Equatable & Sendable>(
    of type: Object.Type, id: UUID, _ key: KeyPath<Object, Value>
  ) -> History<Value> {
    ui.history(of: type, id: id, key)
  }
}
