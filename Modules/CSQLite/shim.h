// The system's SQLite, as Courier's durable store uses it (Debian: libsqlite3-dev).
#include <sqlite3.h>
