package modelread

// Entry is the cached outcome of one screen: a reply, or the failure that
// keeps the same screen from being sent again.
type Entry struct {
	Reply  Reply
	Failed Failure // "" when Reply is the model's
}

// Cache maps screen hashes to outcomes, bounded: the oldest entry goes
// first. Not safe for concurrent use.
type Cache struct {
	max   int
	m     map[string]Entry
	order []string
}

// NewCache returns a cache of at most size entries (at least 1).
func NewCache(size int) *Cache {
	return &Cache{max: max(size, 1), m: map[string]Entry{}}
}

// Get returns the outcome for a screen hash.
func (c *Cache) Get(hash string) (Entry, bool) {
	e, ok := c.m[hash]
	return e, ok
}

// Put records the outcome for a screen hash.
func (c *Cache) Put(hash string, e Entry) {
	if _, ok := c.m[hash]; !ok {
		c.order = append(c.order, hash)
		if len(c.order) > c.max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.m[hash] = e
}

// Len is the number of entries.
func (c *Cache) Len() int { return len(c.m) }
