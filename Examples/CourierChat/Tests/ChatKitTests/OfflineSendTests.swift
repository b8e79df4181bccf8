import ChatKit
import CourierAPI
import FakeBackend
import Models
import SyncTestSupport
import TestSupport
import Testing

@Suite("Offline send", .courier())
@MainActor
struct OfflineSendTests {
  @Test(
    "A message sent offline shows pending, then sent once the network is back, and the server has it once"
  )
  func offlineSend() async throws {
    let world = try await SyncWorld.start()
    let (_, chat) = try await world.contactWithConversation(named: "Ann")
    await world.setNetwork(.offline)
    let message = try world.write("See you at noon", in: chat)
    let states = world.history(of: Message.self, id: message.id, \.deliveryState)
    await world.settle()
    await world.setNetwork(.online)
    await world.settle()
    let values = await states.values()
    #expect(values == [.pending, .sent])
    #expect(world.fake.requests(.postMessage, status: 201).count == 1)
  }

  @Test("The conversation screen shows the message as sent once the network is back")
  func screenShowsSent() async throws {
    // given
    let world = try await SyncWorld.start()
    let (_, chat) = try await world.contactWithConversation(named: "Ann")
    let screen = ConversationScreen(context: world.ui, conversationID: chat.id)
    await world.setNetwork(.offline)
    try world.write("See you at noon", in: chat)

    // when
    await world.setNetwork(.online)
    await world.settle()

    // then
    await pollingConfirmation("the screen shows the message as sent", until: .firstPass) {
      screen.rows == [ConversationScreen.Row(text: "See you at noon", state: .sent)]
    }
  }
}
