package model

// DCPShardSize is dcpShardSize, for tests to make the virtual files of a
// small checkpoint sharded.
var DCPShardSize = &dcpShardSize
