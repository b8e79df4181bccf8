// swift-tools-version: 6.1
// CourierChat: an app that uses Courier from outside, through its published products only.
import PackageDescription

let package = Package(
  name: "CourierChat",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [.library(name: "ChatKit", targets: ["ChatKit"])],
  dependencies: [.package(name: "Courier", path: "../..")],
  targets: [
    .target(
      name: "ChatKit",
      dependencies: [
        .product(name: "Models", package: "Courier"),
        .product(name: "SyncEngine", package: "Courier"),
      ]),
    .testTarget(
      name: "ChatKitTests",
      dependencies: [
        "ChatKit",
        .product(name: "SyncTestSupport", package: "Courier"),
        .product(name: "FakeBackend", package: "Courier"),
        .product(name: "TestSupport", package: "Courier"),
      ]),
  ]
)
