/// The injectable seams that production code takes, so tests can make them deterministic.
public enum Seams {}
