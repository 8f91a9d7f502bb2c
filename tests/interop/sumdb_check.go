// sumdb_check reads a fairdeal log through Go's own transparency-log code
// (golang.org/x/mod/sumdb/note and sumdb/tlog), which shares nothing with fairdeal's.
//
// It opens /checkpoint with the log's verifier key, authenticates the tiles against it
// (tlog.TileHashReader) and recomputes the root; for each leaf named on the command line
// it checks the entry bundle against the level-0 tile and proves the leaf with
// tlog.ProveRecord, comparing the proof with fairdeal's /v1/log/inclusion byte for byte;
// with -old, it proves the older size with tlog.ProveTree against /v1/log/consistency.
//
//	sumdb_check -url URL -vkey KEY [-old M] [INDEX:QUERY ...]
//
// QUERY is what names the leaf's head to /v1/log/inclusion: round=ID, or table=ID&seq=N.
// It prints a JSON summary and exits 1 on any disagreement (2 on bad usage).
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

type summary struct {
	Origin      string   `json:"origin"`
	Size        int64    `json:"size"`
	Root        string   `json:"root"`
	TreeHash    bool     `json:"tree_hash_ok"`
	Leaves      []int64  `json:"leaves_ok"`
	Consistency bool     `json:"consistency_ok"`
	Errors      []string `json:"errors"`
}

type checker struct {
	base    string
	tree    tlog.Tree
	hashes  tlog.HashReader
	summary summary
}

func main() {
	base := flag.String("url", "", "the service's base URL")
	vkey := flag.String("vkey", "", "the log's C2SP verifier key")
	old := flag.Int64("old", 0, "an older tree size to prove consistent (0: none)")
	flag.Parse()
	if *base == "" || *vkey == "" {
		flag.Usage()
		os.Exit(2)
	}
	c := &checker{base: strings.TrimSuffix(*base, "/"), summary: summary{Errors: []string{}}}
	if err := c.run(*vkey, *old, flag.Args()); err != nil {
		c.fail("%v", err)
	}
	out, _ := json.Marshal(c.summary)
	fmt.Println(string(out))
	if len(c.summary.Errors) > 0 {
		os.Exit(1)
	}
}

func (c *checker) fail(format string, args ...interface{}) {
	c.summary.Errors = append(c.summary.Errors, fmt.Sprintf(format, args...))
}

func (c *checker) run(vkey string, old int64, leaves []string) error {
	if err := c.openCheckpoint(vkey); err != nil {
		return err
	}
	c.hashes = tlog.TileHashReader(c.tree, tileReader{c.base})
	root, err := tlog.TreeHash(c.tree.N, c.hashes)
	if err != nil {
		return fmt.Errorf("tree hash from tiles: %v", err)
	}
	if root != c.tree.Hash {
		return fmt.Errorf("tree hash from tiles %v is not the checkpoint's root %v", root, c.tree.Hash)
	}
	c.summary.TreeHash = true
	c.summary.Leaves = []int64{}
	for _, leaf := range leaves {
		if index, err := c.checkLeaf(leaf); err != nil {
			c.fail("leaf %s: %v", leaf, err)
		} else {
			c.summary.Leaves = append(c.summary.Leaves, index)
		}
	}
	if old > 0 {
		if err := c.checkConsistency(old); err != nil {
			c.fail("consistency from %d: %v", old, err)
		}
	}
	return nil
}

// openCheckpoint verifies /checkpoint's note (other keys' signature lines, such as
// witnesses' cosignatures, are left unverified by note.Open) and parses its body.
func (c *checker) openCheckpoint(vkey string) error {
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return fmt.Errorf("verifier key: %v", err)
	}
	text, err := get(c.base + "/checkpoint")
	if err != nil {
		return err
	}
	n, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		return fmt.Errorf("checkpoint note: %v", err)
	}
	lines := strings.SplitN(n.Text, "\n", 4)
	if len(lines) < 4 {
		return fmt.Errorf("checkpoint body has fewer than 3 lines")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return fmt.Errorf("checkpoint size %q", lines[1])
	}
	hash, err := tlog.ParseHash(lines[2])
	if err != nil {
		return fmt.Errorf("checkpoint root %q: %v", lines[2], err)
	}
	c.tree = tlog.Tree{N: size, Hash: hash}
	c.summary.Origin, c.summary.Size, c.summary.Root = lines[0], size, hash.String()
	return nil
}

// checkLeaf checks "INDEX:QUERY": the entry hashes to the level-0 hash, Go's proof checks
// against the root and is fairdeal's proof. Both checks are needed: x/mod 0.7.0's
// TileHashReader authenticates child tiles from the count of the root's subtrees, not of
// the tiles holding them, so when two subtrees share a tile the first child tile read is
// not checked against its parent.
func (c *checker) checkLeaf(spec string) (int64, error) {
	indexText, query, found := strings.Cut(spec, ":")
	index, err := strconv.ParseInt(indexText, 10, 64)
	if !found || err != nil {
		return 0, fmt.Errorf("not INDEX:QUERY")
	}
	return index, c.checkRecord(index, query)
}

func (c *checker) checkRecord(index int64, query string) error {
	entry, err := c.entry(index)
	if err != nil {
		return err
	}
	leafHashes, err := c.hashes.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
	if err != nil {
		return fmt.Errorf("level-0 hash: %v", err)
	}
	record := tlog.RecordHash(entry)
	if record != leafHashes[0] {
		return fmt.Errorf("entry hashes to %v, the level-0 tile has %v", record, leafHashes[0])
	}
	proof, err := tlog.ProveRecord(c.tree.N, index, c.hashes)
	if err != nil {
		return fmt.Errorf("ProveRecord: %v", err)
	}
	if err := tlog.CheckRecord(proof, c.tree.N, c.tree.Hash, index, record); err != nil {
		return fmt.Errorf("CheckRecord: %v", err)
	}
	var theirs struct {
		LeafIndex int64    `json:"leaf_index"`
		HeadHash  string   `json:"head_hash"`
		Proof     []string `json:"proof"`
	}
	path := fmt.Sprintf("/v1/log/inclusion?%s&size=%d", query, c.tree.N)
	if err := getJSON(c.base+path, &theirs); err != nil {
		return err
	}
	if theirs.LeafIndex != index || theirs.HeadHash != hex.EncodeToString(entry) {
		return fmt.Errorf("fairdeal names leaf %d head %s", theirs.LeafIndex, theirs.HeadHash)
	}
	return sameHashes("inclusion proof", proof, theirs.Proof)
}

func (c *checker) checkConsistency(old int64) error {
	proof, err := tlog.ProveTree(c.tree.N, old, c.hashes)
	if err != nil {
		return fmt.Errorf("ProveTree: %v", err)
	}
	var theirs struct {
		FromRoot string   `json:"from_root"`
		Proof    []string `json:"proof"`
	}
	path := fmt.Sprintf("/v1/log/consistency?from=%d&to=%d", old, c.tree.N)
	if err := getJSON(c.base+path, &theirs); err != nil {
		return err
	}
	oldRoot, err := hexHash(theirs.FromRoot)
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(proof, c.tree.N, c.tree.Hash, old, oldRoot); err != nil {
		return fmt.Errorf("CheckTree: %v", err)
	}
	if err := sameHashes("consistency proof", proof, theirs.Proof); err != nil {
		return err
	}
	c.summary.Consistency = true
	return nil
}

// entry reads the leaf's data from its entry bundle (Go's data tile, tlog level -1) as
// wide as the checkpoint's tree has it.
func (c *checker) entry(index int64) ([]byte, error) {
	tile := tlog.Tile{H: height, L: -1, N: index >> height, W: 1 << height}
	if left := c.tree.N - tile.N<<height; left < int64(tile.W) {
		tile.W = int(left)
	}
	bundle, err := get(c.base + "/" + fairdealPath(tile))
	if err != nil {
		return nil, err
	}
	for i := int64(0); ; i++ {
		if len(bundle) < 2 {
			return nil, fmt.Errorf("entry bundle %s ends before entry %d", tile.Path(), i)
		}
		size := int(binary.BigEndian.Uint16(bundle))
		if len(bundle) < 2+size {
			return nil, fmt.Errorf("entry bundle %s: entry %d cut short", tile.Path(), i)
		}
		if i == index%(1<<height) {
			return bundle[2 : 2+size], nil
		}
		bundle = bundle[2+size:]
	}
}

func sameHashes(what string, ours []tlog.Hash, theirs []string) error {
	if len(ours) != len(theirs) {
		return fmt.Errorf("%s: Go has %d hashes, fairdeal %d", what, len(ours), len(theirs))
	}
	for i, h := range ours {
		if hex.EncodeToString(h[:]) != theirs[i] {
			return fmt.Errorf("%s hash %d: Go %x, fairdeal %s", what, i, h[:], theirs[i])
		}
	}
	return nil
}

// tileReader serves tlog's tile requests from fairdeal's paths: Go's tile/8/L/N[.p/W]
// is fairdeal's tile/L/N[.p/W], and Go's data tiles are fairdeal's entry bundles.
type tileReader struct{ base string }

func (r tileReader) Height() int { return height }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(tiles))
	for i, tile := range tiles {
		body, err := get(r.base + "/" + fairdealPath(tile))
		if err != nil {
			return nil, err
		}
		data[i] = body
	}
	return data, nil
}

func (r tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

func fairdealPath(tile tlog.Tile) string {
	path := strings.TrimPrefix(tile.Path(), fmt.Sprintf("tile/%d/", height))
	return "tile/" + strings.Replace(path, "data/", "entries/", 1)
}

func get(url string) ([]byte, error) {
	response, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s %s", url, response.Status, bytes.TrimSpace(body))
	}
	return body, nil
}

func getJSON(url string, into interface{}) error {
	body, err := get(url)
	if err != nil {
		return err
	}
	return json.Unmarshal(body, into)
}

func hexHash(text string) (tlog.Hash, error) {
	var h tlog.Hash
	raw, err := hex.DecodeString(text)
	if err != nil || len(raw) != len(h) {
		return h, fmt.Errorf("not a hex hash: %q", text)
	}
	copy(h[:], raw)
	return h, nil
}
