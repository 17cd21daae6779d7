// Package site renders a model's report as static HTML pages with the
// pictures of package render: index.html at the root (the verdict, the
// dimension legend, overview.png and a table of every tensor with a
// health mark) and, in each tensor's directory, index.html (its shape,
// type, location and statistics), heatmap.png and hist.png. Links are
// relative, so the pages work from file:///MNT/index.html of a mount or
// from a directory written by [Write]; there is no JavaScript and nothing
// is fetched from the network.
//
// # Sizes
//
// A mount reports sizes at LOOKUP, so a page's size is fixed before any
// statistics are computed: every field that depends on them (numbers,
// the health mark) is written at a fixed width, padded with spaces,
// which HTML collapses, and the health mark is a fixed-width character
// reference with a class of fixed width. A page's size then depends on
// the names and shapes alone; [New] computes it by writing the page with
// blank fields. Pages are rendered on their first read and kept in the
// [render.Cache] with the pictures.
//
// # Health
//
// The root page's health column is ok, nan, inf, zero, constant or empty
// (see [decode.Stats.Health]); outlier for a block tensor whose RMS is
// more than 10 times the median RMS of its kind over the layers (see
// [render.LayerKind]; for a kind of more than [KindSample] tensors, the
// median of KindSample of them spread evenly, so that the first rows of
// a half-million-tensor page do not wait for the statistics of every
// expert); n/a for a tensor that is not decoded; error when
// its statistics could not be computed (an I/O error, say). A tensor's
// own page shows the health of its statistics alone, without outlier,
// which needs the statistics of its whole kind.
//
// # Paths
//
// Tensor pages are at <dir>/index.html, where dir is the tensor's
// directory in the tree (package layout, through [check.Report.Paths]), or
// what [Options.Path] says; links are
// percent-encoded per component and start with "./" or "../", so that a
// component holding ':' is never read as a URL scheme.
package site
