module github.com/fsmount/fsmount

go 1.26.8

require (
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.50.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
