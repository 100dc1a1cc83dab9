# SPDX-License-Identifier: MIT
#
# Prints a using-declaration for each tiling class declared directly in
# namespace optiling by BEGIN_TILING_DATA_DEF(Name) in the headers given,
# skipping comments, literals and preprocessor lines and following braces:
# the same scan as scan_tiling_classes() in npu/sim-compile.c, for build.sh.
function flush(   s, tok, name) {
	s = buf
	depth = 0
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*|[{}]/)) {
		tok = substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH)
		if (tok == "{") {
			scope[depth++] = "other"
		} else if (tok == "}") {
			if (depth > 0)
				depth--
		} else if (tok == "namespace") {
			if (match(s, /^[ \t\r\n]*[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\{/) || match(s, /^[ \t\r\n]*\{/)) {
				name = substr(s, RSTART, RLENGTH)
				gsub(/[ \t\r\n{]/, "", name)
				scope[depth++] = name == "optiling" ? "optiling" : "other"
				s = substr(s, RSTART + RLENGTH)
			}
		} else if (tok == "BEGIN_TILING_DATA_DEF" &&
			   match(s, /^[ \t\r\n]*\([ \t\r\n]*[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\)/)) {
			name = substr(s, RSTART, RLENGTH)
			gsub(/[ \t\r\n()]/, "", name)
			if (depth == 1 && scope[0] == "optiling")
				print "using optiling::" name ";"
			s = substr(s, RSTART + RLENGTH)
		}
	}
	buf = ""
}
FNR == 1 && NR > 1 { flush(); incomment = 0; cont = 0 }
{
	line = $0
	if (cont) {
		cont = line ~ /\\$/
		next
	}
	if (!incomment && line ~ /^[ \t]*#/) {
		cont = line ~ /\\$/
		next
	}
	out = ""
	i = 1
	n = length(line)
	while (i <= n) {
		if (incomment) {
			j = index(substr(line, i), "*/")
			if (!j) {
				i = n + 1
				break
			}
			i += j + 1
			incomment = 0
			out = out " "
			continue
		}
		c = substr(line, i, 2)
		if (c == "//")
			break
		if (c == "/*") {
			incomment = 1
			i += 2
			continue
		}
		c = substr(line, i, 1)
		if (c == "\"" || c == "'") {
			i++
			while (i <= n && substr(line, i, 1) != c) {
				if (substr(line, i, 1) == "\\")
					i++
				i++
			}
			i++
			out = out " "
			continue
		}
		out = out c
		i++
	}
	buf = buf out "\n"
}
END { flush() }
