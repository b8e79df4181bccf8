import Foundation
import LoopbackServer
import Seams
import TestSupport
import Testing

extension LoopbackServerTests {
  @Suite("Stopping")
  struct Stopping {
    @Test("stop closes open connections, cancels running handlers and leaves no thread behind")
    func stopCancelsEverything() async throws {
      // given: a handler that sleeps until cancelled, with a request in it
      let started = AsyncExpectation("the handler started")
      let cancelled = AsyncExpectation("the handler saw the cancellation")
      let server = try LoopbackServer.start { _ in
        started.fulfill()
        do {
          try await Task.sleep(for: .seconds(3_600))
        } catch {
          cancelled.fulfill()
        }
        return .closeWithoutAnswer
      }
      let client = try await DedicatedThread.perform {
        let client = try connect(to: server)
        client.request("GET", "/sleep")
        return ClientBox(client)
      }
      await started.fulfillment(within: .seconds(2))

      // when
      await server.stop()

      // then
      await cancelled.fulfillment(within: .seconds(1))
      #expect(server.openConnections == 0)
      #expect(!server.isRunning)
      let closed = try await DedicatedThread.perform { client.client.isClosedByServer() }
      #expect(closed)
      // Whether the port still accepts is not asked: once it is free, a server of a suite
      // running beside this one may be given it.
    }

    #if os(Linux)
      @Test(
        "A thousand start, request and stop cycles leave no file descriptor open",
        .timeBudget(.seconds(40)),
        .disabled(under: .thread, "a thousand cycles in a child process take minutes under TSan"))
      func noDescriptorLeak() async throws {
        // when, then: in a process of its own, where no other test opens descriptors meanwhile
        await #expect(processExitsWith: .success) {
          func cycle() async throws {
            try await withServer { server in
              _ = try await DedicatedThread.perform {
                let client = try connect(to: server)
                client.request("GET", "/")
                return client.readResponse()?.status
              }
            }
          }
          // Warm up first: the runtime opens a few descriptors of its own once, and keeps them.
          for _ in 0..<10 { try await cycle() }
          let before = openDescriptors()
          for _ in 0..<1_000 { try await cycle() }
          let after = openDescriptors()
          if after != before {
            print("descriptors open before: \(before.sorted()), after: \(after.sorted())")
            exit(1)
          }
        }
      }
    #endif
  }
}

/// A client handed between threads in a test; only one thread uses it at a time.
struct ClientBox: @unchecked Sendable {
  let client: LoopbackClient
  init(_ client: LoopbackClient) { self.client = client }
}

/// The file descriptors the process has open, each with what it refers to.
func openDescriptors() -> Set<String> {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return Set(
    names.map { name in
      let target = try? FileManager.default.destinationOfSymbolicLink(
        atPath: "/proc/self/fd/\(name)")
      return "\(name) → \(target ?? "?")"
    })
}
