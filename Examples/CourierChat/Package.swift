// swift-tools-version: 6.1
// CourierChat: an app that uses Courier from outside, through its published products only.
import PackageDescription

let package = Package(
  name: "CourierChat",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ChatKit", targets: ["ChatKit"]),
    .executable(name: "courier-chat", targets: ["courier-chat"]),
  ],
  dependencies: [.package(name: "Courier", path: "../..")],
  targets: [
    .target(
      name: "ChatKit",
      dependencies: [
        .product(name: "CourierAPI", package: "Courier"),
        .product(name: "Models", package: "Courier"),
        .product(name: "SyncEngine", package: "Courier"),
        .product(name: "SyncStrategies", package: "Courier"),
        .product(name: "Transport", package: "Courier"),
      ]),
    .executableTarget(
      name: "courier-chat",
      dependencies: [
        "ChatKit",
        .product(name: "Models", package: "Courier"),
        .product(name: "Seams", package: "Courier"),
        .product(name: "SQLiteStore", package: "Courier"),
        .product(name: "SyncEngine", package: "Courier"),
        .product(name: "Transport", package: "Courier"),
      ]),
    .testTarget(
      name: "ChatKitTests",
      dependencies: [
        "ChatKit",
        .product(name: "CourierAPI", package: "Courier"),
        .product(name: "Models", package: "Courier"),
        .product(name: "ModelsTestSupport", package: "Courier"),
        .product(name: "SyncEngine", package: "Courier"),
        .product(name: "Transport", package: "Courier"),
        .product(name: "SyncTestSupport", package: "Courier"),
        .product(name: "FakeBackend", package: "Courier"),
        .product(name: "TestSupport", package: "Courier"),
      ]),
  ]
)
