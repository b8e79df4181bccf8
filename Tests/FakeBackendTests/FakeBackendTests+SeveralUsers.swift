import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing
import Transport
import UserParsing

extension FakeBackendTests {
  @Suite("Several users")
  struct SeveralUsers {
    /// A fake with a self user and Ann and Bob, who have handles to sign in with.
    static func fakeWithUsers() -> (FakeBackend, me: UUID, ann: UUID, bob: UUID) {
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann", handle: "ann")
      let bob = fake.insertUser(name: "Bob", handle: "bob")
      return (fake, me, ann, bob)
    }

    /// Sends `method path` with `token` as its bearer token, and the JSON `body` if any.
    static func send(
      _ fake: FakeBackend, _ method: String, _ path: String, token: String?,
      body: JSONValue? = nil
    ) async throws -> TransportResponse {
      let request = FakeRequest(
        method: method, segments: path.split(separator: "/").map(String.init),
        headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:],
        body: body.map { Data($0.serialized()) })
      return try await fake.handle(request).get()
    }

    static func signIn(_ fake: FakeBackend, _ handle: String) throws -> SignedIn {
      guard case .signedIn(let session) = try fake.answer(.signIn(SignIn(handle: handle))).get()
      else { throw APIError(code: 0, label: .notFound, message: "no session for \(handle)") }
      return session
    }

    /// The type of each event in `stream`, in order.
    static func kinds(_ stream: [NotificationPayload]) -> [String] {
      stream.flatMap(\.events).map { event in
        guard case .object(let fields) = event.jsonValue, case .string(let type)? = fields["type"]
        else { return "?" }
        return type
      }
    }

    @Test("Signing in by handle hands out a token that every later request acts with")
    func signInActsAsTheUser() async throws {
      // given
      let (fake, _, ann, _) = Self.fakeWithUsers()
      let session = try Self.signIn(fake, "ANN")

      // when
      let response = try await Self.send(fake, "GET", "/self", token: session.accessToken)

      // then
      #expect(session.user == ann)
      #expect(try UserPayload.parse(response.body).id == ann)
    }

    @Test(
      "When sign-in is required, a token or a handle the backend does not know is refused with its own label",
      arguments: [("token", 401, ErrorLabel.invalidToken), ("handle", 403, .invalidCredentials)])
    func refusals(_ what: String, _ status: Int, _ label: ErrorLabel) async throws {
      // given
      let (fake, _, _, _) = Self.fakeWithUsers()
      fake.requiresSignIn = true

      // when
      let response =
        what == "token"
        ? try await Self.send(fake, "GET", "/self", token: "made-up")
        : try await Self.send(fake, "POST", "/login", token: nil, body: ["handle": "zed"])

      // then
      #expect(response.status == status)
      #expect(try APIError.parse(response.body).label == label)
    }

    @Test(
      "Unless sign-in is required, a request without a handed-out token acts for the self user",
      arguments: [nil, "token-from-a-keychain"])
    func otherTokensAreSelf(_ token: String?) async throws {
      // given
      let (fake, me, _, _) = Self.fakeWithUsers()

      // when
      let response = try await Self.send(fake, "GET", "/self", token: token)

      // then
      #expect(try UserPayload.parse(response.body).id == me)
    }

    @Test("When sign-in is required, a request without a token is refused")
    func noTokenRefused() async throws {
      // given
      let (fake, _, _, _) = Self.fakeWithUsers()
      fake.requiresSignIn = true

      // when
      let response = try await Self.send(fake, "GET", "/self", token: nil)

      // then
      #expect(response.status == 401)
    }

    @Test("Each user's notifications hold the changes that concern them, and only those")
    func streamsPerUser() async throws {
      // given: Ann and Bob in a group, the self user elsewhere
      let (fake, me, ann, bob) = Self.fakeWithUsers()
      let anns = try Self.signIn(fake, "ann")
      let created = try fake.answer(
        .createConversation(NewConversation(id: nil, name: "Tea", users: [bob])), as: ann
      ).answer.get()
      guard case .conversation(let conversation) = created else {
        Issue.record("no conversation in \(created)")
        return
      }
      let group = conversation.id

      // when: Ann writes as herself
      let posted = try await Self.send(
        fake, "POST", "/conversations/\(group.lowercasedText)/messages", token: anns.accessToken,
        body: ["nonce": .string(UUID(7).lowercasedText), "text": "hi Bob"])

      // then
      #expect(posted.status == 201)
      let told = ["conversation.create", "conversation.message-add"]
      #expect(Self.kinds(fake.notifications(of: bob)) == told)
      #expect(Self.kinds(fake.notifications(of: ann)) == told)
      #expect(fake.notifications(of: me).isEmpty)
      #expect(fake.messages(in: group).map(\.from) == [ann])
    }

    @Test("One change has one version in every stream that hears of it, and ids unique per stream")
    func oneVersionPerChange() throws {
      // given
      let (fake, me, ann, bob) = Self.fakeWithUsers()
      let group = fake.createGroupRemotely(name: "Tea", by: ann, members: [bob])

      // when
      _ = fake.renameRemotely(group, to: "Coffee", by: bob)

      // then
      let streams = [me, ann, bob].map { fake.notifications(of: $0) }
      #expect(Set(streams.compactMap { $0.last?.version }).count == 1)
      for stream in streams { #expect(Set(stream.map(\.id)).count == stream.count) }
    }

    @Test("Connecting two users accepts both sides, and each hears of their own side")
    func connectTwoUsers() throws {
      // given
      let (fake, me, ann, bob) = Self.fakeWithUsers()

      // when
      let conversation = fake.connect(ann, with: bob)

      // then
      #expect(conversation != nil)
      #expect(fake.connection(from: ann, to: bob)?.status == .accepted)
      #expect(fake.connection(from: bob, to: ann)?.status == .accepted)
      #expect(Self.kinds(fake.notifications(of: bob)).contains("user.connection"))
      #expect(fake.notifications(of: me).isEmpty)
    }
  }
}
