// Suites that import TestSupport also see the seams it scopes (UUIDSource, WorkTracker, CourierLogger,
// SeededRandomNumberGenerator), so a test needs one import for its helpers.
@_exported import Seams
