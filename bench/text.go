package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Word pools for the languages a conversation mixes. Non-Latin text matters:
// a counter that counts bytes overestimates it two to three times.
var (
	englishWords = strings.Fields(`the build fails when the cache is cold and the
		handler retries the request after a timeout so we need to check which
		module pins the older version of the client before we ship a fix for the
		release branch and update the changelog with the new flag names`)
	chineseWords = strings.Fields(`请 检查 配置 文件 中 的 超时 设置 然后 重新 运行 测试 并 把 结果
		发给 我 这个 函数 在 并发 情况 下 会 出现 数据 竞争 需要 加锁`)
	russianWords = strings.Fields(`пожалуйста проверьте журнал ошибок сервера и
		сравните версии библиотек после последнего обновления конфигурации`)
	japaneseWords = strings.Fields(`この 関数 は 入力 が 空 の とき に エラー を
		返します 設定 ファイル を 確認 して ください`)
)

// sentence returns about n bytes of words from pool joined by sep.
func sentence(r *rand.Rand, pool []string, sep string, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(pool[r.IntN(len(pool))])
	}
	return b.String()
}

// prose returns about n bytes of natural-language text: mostly English, with
// Chinese, Russian or Japanese in roughly a quarter of the calls.
func prose(r *rand.Rand, n int) string {
	switch k := r.IntN(20); {
	case k < 3:
		return sentence(r, chineseWords, "", n)
	case k < 4:
		return sentence(r, russianWords, " ", n)
	case k < 5:
		return sentence(r, japaneseWords, "", n)
	default:
		return sentence(r, englishWords, " ", n)
	}
}

// toolOutput returns about n bytes of what tools return: source code, JSON
// or log lines, with an occasional non-Latin string inside.
func toolOutput(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 128)
	kind := r.IntN(3)
	for i := 0; b.Len() < n; i++ {
		switch kind {
		case 0:
			fmt.Fprintf(&b, "func handler%d(ctx context.Context, req *Request) (*Response, error) {\n\tif err := req.Validate(); err != nil {\n\t\treturn nil, fmt.Errorf(\"validate %%q: %%w\", req.ID, err)\n\t}\n}\n", i)
		case 1:
			fmt.Fprintf(&b, `{"id": %d, "path": "/srv/app/internal/store/file_%d.go", "status": "ok", "note": %q}`+"\n", i, r.IntN(1000), sentence(r, englishWords, " ", 24))
		default:
			fmt.Fprintf(&b, "2026-12-02T10:%02d:%02d.%03dZ INFO request handled method=GET path=/api/v1/items/%d latency=%dms\n", i%60, r.IntN(60), r.IntN(1000), r.IntN(100000), r.IntN(900))
		}
		if r.IntN(12) == 0 {
			b.WriteString(prose(r, 48))
			b.WriteString("\n")
		}
	}
	return b.String()
}
