module github.com/openshift-eng/prowcrawl

go 1.26.0
