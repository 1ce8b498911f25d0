// Package metricserve serves an HTTP endpoint whose body is expensive to
// make — `sup metrics --listen`, where one body is a fan-out to every
// supervisor — so that no number of scrapers multiplies that cost.
//
// Invariants:
//   - At most one collection runs at a time (Shared: concurrent requests
//     wait for the one in flight) and a finished one answers every request
//     for TTL: N scrapers cost the supervisors what one does, at most one
//     fan-out per TTL.
//   - A collection runs detached from the request that started it, bounded
//     by its own timeout: a scraper hanging up does not waste it for the
//     others waiting on it.
//   - The server holds at most MaxConns connections (LimitListener: more
//     wait in the kernel's backlog, costing sup nothing), and every
//     connection is bounded in time: headers, the whole exchange and
//     keep-alive idleness each have a timeout (NewServer), so slow or idle
//     clients cannot pin memory or slots.
//   - Listen binds loopback addresses only unless asked otherwise, and
//     Describe names every address a listener is reachable on, IPv4 and
//     IPv6.
package metricserve
