<?php

namespace Toolmark\Laravel\Agent;

use Toolmark\Laravel\Events\ToolmarkChat;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Mask;

/**
 * One assistant message as it streams, the PHP port of @toolmark/server's TextStream: collects the
 * model's deltas and publishes the masked text in batches, at most one per `intervalMs` unless the
 * new text since the last one makes three quarters of `maxBytes` of JSON, none larger than `maxBytes`. It holds
 * back the last word and any tail that could still become (or be the start of) something the
 * masking changes: a run of digits (a card number still growing), a security-code or password
 * keyword waiting for its value, the start of a known secret, and everything from a held word on
 * (a word of the user's message that the model may yet pass at a sensitive path). Each new piece is
 * masked together with the text shortly before it, with Mask::assistantText(), the function the
 * stored message is masked with; the stored message (`.toolmark.chat`, with the same messageId)
 * ends the stream and wins over it. No timer runs: a batch is sent when a delta arrives.
 */
final class TextStream
{
    /** Default batching: at most one delta event this often (ms)... */
    public const INTERVAL_MS = 100;

    /** ...unless the new text makes three quarters of this many bytes of JSON; no delta event carries more. */
    public const MAX_BYTES = 2048;

    /** The smallest batch size accepted (a few words). */
    public const MIN_BYTES = 64;

    /** How far before the last cut the next one looks again (a card number with separators, a code with its keyword). */
    private const LOOK_BEHIND = 64;

    /** Text the masking could change: a digit, or a fragment of a security-code or password keyword. */
    private const RISKY = '/\d|pass|cv|cs|cid|pin|code|verif/i';

    /** @var callable(string): void */
    private $publish;

    /** @var callable(): float */
    private $clock;

    private readonly int $intervalMs;

    private readonly int $maxBytes;

    /** @var list<string> secretForms() of the known secrets */
    private readonly array $forms;

    private string $raw = '';

    /** How much of the model's text (bytes) is masked and sent. */
    private int $cut = 0;

    /** @var list<int> every cut so far (where a masking may start over) */
    private array $cuts = [0];

    private string $sent = '';

    private bool $stopped = false;

    private ?float $last = null;

    /** The length of the model's text at the last batch. */
    private int $batchedAt = 0;

    /** How many delta events were published. */
    private int $events = 0;

    /**
     * @param callable(string): void $publish publishes one masked delta (one event)
     * @param list<string> $secrets the values known to be secret in the turn
     * @param list<string> $held words the text stops streaming before (heldWords())
     * @param (callable(): float)|null $clock milliseconds (default: microtime)
     */
    public function __construct(
        callable $publish,
        private readonly array $secrets = [],
        private readonly array $held = [],
        int $intervalMs = self::INTERVAL_MS,
        int $maxBytes = self::MAX_BYTES,
        ?callable $clock = null,
    ) {
        $this->publish = $publish;
        $this->clock = $clock ?? fn (): float => microtime(true) * 1000;
        $this->intervalMs = max(0, $intervalMs);
        $this->maxBytes = min(max(self::MIN_BYTES, $maxBytes), ToolmarkChat::MAX_TEXT_BYTES);
        $this->forms = Mask::secretForms($secrets);
    }

    /** The masked text sent so far. */
    public function sent(): string
    {
        return $this->sent;
    }

    /** How many delta events were published. */
    public function events(): int
    {
        return $this->events;
    }

    /** Adds the model's next delta; sends a batch when the last one is `intervalMs` old or `maxBytes` came in since. */
    public function push(string $delta): void
    {
        if ($this->stopped || $delta === '') {
            return;
        }
        $this->raw .= $delta;
        $now = ($this->clock)();
        if ($this->last === null || $now - $this->last >= $this->intervalMs || $this->batchFull()) {
            $this->last = $now;
            $this->batchedAt = strlen($this->raw);
            $this->flush();
        }
    }

    /**
     * True once the text since the last batch makes three quarters of `maxBytes` of JSON: sent now, it
     * fits one event with the end of the word before it (a longer delta is split into several).
     */
    private function batchFull(): bool
    {
        $new = strlen($this->raw) - $this->batchedAt;

        return $new * 6 >= $this->maxBytes * 3 / 4 // a byte is at most 6 of JSON (`\u00e9`): only then is it measured
            && strlen((string) json_encode(mb_strcut($this->raw, $this->batchedAt, $new))) >= $this->maxBytes * 3 / 4;
    }

    /**
     * The message is complete and stored as `$stored`: when it continues the text sent so far, the
     * rest goes out as the last delta (the deltas then add up to the stored text). Nothing more is
     * published after this.
     */
    public function finish(string $stored): void
    {
        if (! $this->stopped && $this->sent !== '' && str_starts_with($stored, $this->sent) && strlen($stored) > strlen($this->sent)) {
            $this->publishChunks(substr($stored, strlen($this->sent)));
            $this->sent = $stored;
        }
        $this->end();
    }

    /** Stops streaming (the turn failed, or the message is stored): nothing more is published. */
    public function end(): void
    {
        $this->stopped = true;
    }

    private function flush(): void
    {
        // Never past what the stored message keeps (Wire::MAX_PROVIDER_TEXT code units).
        $end = strlen(Llm::cut($this->raw));
        if ($this->forms === [] && $this->held === [] && preg_match(self::RISKY, substr($this->raw, $w = max(0, $this->cut - self::LOOK_BEHIND), $end - $w)) !== 1) {
            // No digit, no keyword and no known secret near the new text: the masking changes none
            // of it, so it goes out as it came, up to its last word boundary.
            $cut = $end;
            while ($cut > $this->cut && ! self::boundaryAt($this->raw, $cut)) {
                $cut--;
            }
            if ($cut > $this->cut) {
                $this->send($cut, substr($this->raw, $this->cut, $cut - $this->cut));
            }

            return;
        }
        $cut = $this->safeCut(substr($this->raw, 0, $end));
        if ($cut <= $this->cut) {
            return;
        }
        // The new piece is masked with what came a little before it (from an earlier cut), so a
        // keyword sent before still masks the code after it; what it adds to that masking is the delta.
        $base = 0;
        for ($i = count($this->cuts) - 1; $i >= 0; $i--) {
            if ($this->cuts[$i] <= $this->cut - self::LOOK_BEHIND) {
                $base = $this->cuts[$i];

                break;
            }
        }
        $before = Mask::assistantText(substr($this->raw, $base, $this->cut - $base), $this->forms);
        $after = Mask::assistantText(substr($this->raw, $base, $cut - $base), $this->forms);
        if (! str_starts_with($after, $before)) {
            // The masking of the longer text disagrees with what was sent: nothing more is (the stored message ends it).
            $this->end();

            return;
        }
        $this->send($cut, substr($after, strlen($before)));
    }

    private function send(int $cut, string $delta): void
    {
        // Nothing is sent before the message has words: a reply of white space is never shown.
        if (trim($this->sent) === '' && trim($delta) === '') {
            return;
        }
        $this->cut = $cut;
        $this->cuts[] = $cut;
        $this->sent .= $delta;
        $this->publishChunks($delta);
    }

    /** Publishes a masked delta in pieces of at most `maxBytes` of JSON, whole characters only. */
    private function publishChunks(string $delta): void
    {
        $piece = '';
        $size = 2; // the quotes
        foreach (mb_str_split($delta) as $char) {
            $bytes = strlen((string) json_encode($char)) - 2;
            if ($piece !== '' && $size + $bytes > $this->maxBytes) {
                $this->publishOne($piece);
                $piece = '';
                $size = 2;
            }
            $piece .= $char;
            $size += $bytes;
        }
        if ($piece !== '') {
            $this->publishOne($piece);
        }
    }

    private function publishOne(string $piece): void
    {
        $this->events++;
        ($this->publish)($piece);
    }

    /** True when the text cut at `$at` ends right after white space or sentence punctuation. */
    private static function boundaryAt(string $raw, int $at): bool
    {
        if ($at <= 0) {
            return false;
        }
        if (str_contains(" \t\n\r\f\v.!?", $raw[$at - 1])) {
            return true;
        }

        return $at >= 3 && in_array(substr($raw, $at - 3, 3), ['。', '！', '？'], true);
    }

    /**
     * How much of `$raw` may be masked and sent now: up to a word boundary before its undecided end,
     * never inside or at the start of anything the masking could still change (a card number, a code,
     * a password, a known secret, a held word).
     */
    private function safeCut(string $raw): int
    {
        $from = $this->cut;
        // Only the text from a little before the last cut is looked at again: what came before it is decided.
        $window = max(0, $from - self::LOOK_BEHIND);
        // At the start of a character: the secret patterns read UTF-8 (flag u) and fail on a cut one.
        while ($window > 0 && (ord($raw[$window]) & 0xC0) === 0x80) {
            $window--;
        }
        $cut = $this->undecided($raw, $window);
        $spans = [];
        $tail = substr($raw, $window);
        foreach ([Wire::SECRETS['cardNumber'], Wire::SECRETS['code'], Wire::SECRETS['password']] as $pattern) {
            preg_match_all($pattern, $tail, $matches, PREG_OFFSET_CAPTURE | PREG_SET_ORDER);
            foreach ($matches as $m) {
                $spans[] = [$window + $m[0][1], $window + $m[0][1] + strlen($m[0][0])];
            }
        }
        foreach ($this->secrets as $secret) {
            if (strlen($secret) < Wire::SECRETS['minSecretLength']) {
                continue;
            }
            for ($at = strpos($raw, $secret, $window); $at !== false; $at = strpos($raw, $secret, $at + 1)) {
                $spans[] = [$at, $at + strlen($secret)];
            }
        }
        foreach ($this->held as $word) {
            $at = strpos($raw, $word);
            if ($at !== false) {
                $spans[] = [$at, strlen($raw)];
            }
        }
        $length = strlen($raw);
        for ($moved = true; $moved && $cut > $from;) {
            $moved = false;
            while ($cut > $from && ! self::boundaryAt($raw, $cut)) {
                $cut--;
            }
            foreach ($spans as [$start, $end]) {
                if ($start < $cut && ($end > $cut || $end >= $length - 1)) {
                    $cut = $start;
                    $moved = true;
                }
            }
        }

        return max($cut, $from);
    }

    /**
     * Where the undecided end of `$raw` starts: a trailing run of digits, a security-code or
     * password keyword still waiting for its value, the start of a known secret or held word.
     */
    private function undecided(string $raw, int $from): int
    {
        $at = strlen($raw);
        $tail = substr($raw, $from);
        // The run of digits (with spaces or dashes among them) that ends the text, found from the end: a
        // regular expression would scan a long run of digits again from each of its digits.
        $run = substr($tail, strlen(rtrim($tail, '0123456789 -')));
        $first = strcspn($run, '0123456789');
        if ($first < strlen($run)) {
            $at = $from + strlen($tail) - strlen($run) + $first;
        }
        // A keyword whose value may come next matches once a value is appended; a value already
        // begun is completed, not lengthened (a code has at most 6 digits).
        foreach ([[Wire::SECRETS['code'], '000'], [Wire::SECRETS['password'], 'x']] as [$pattern, $value]) {
            $probe = rtrim($tail, '0123456789').$value;
            preg_match_all($pattern, $probe, $matches, PREG_OFFSET_CAPTURE | PREG_SET_ORDER);
            foreach ($matches as $m) {
                if ($m[0][1] + strlen($m[0][0]) === strlen($probe)) {
                    $at = min($at, $from + $m[0][1]);
                }
            }
        }
        foreach ([...$this->secrets, ...$this->held] as $word) {
            for ($k = min(strlen($word) - 1, strlen($raw)); $k > 0; $k--) {
                if (str_ends_with($raw, substr($word, 0, $k))) {
                    $at = min($at, strlen($raw) - $k);

                    break;
                }
            }
        }

        return $at;
    }

    /**
     * The words of the user's text that could be a value the model passes at a sensitive path: those
     * with a digit or a symbol in them (a code, a number, a password like `hunter2!`), at least the
     * minimum secret length.
     *
     * @return list<string>
     */
    public static function heldWords(string $text): array
    {
        $out = [];
        foreach (preg_split('/\s+/u', $text) ?: [] as $token) {
            $word = (string) preg_replace(['/^[("\'“‘\[]+/u', '/[)"\'”’\].,;:!?]+$/u'], '', $token);
            if (mb_strlen($word) >= Wire::SECRETS['minSecretLength'] && preg_match('/[^\p{L}\'’-]/u', $word) === 1) {
                $out[$word] = true;
            }
        }

        return array_map('strval', array_keys($out));
    }
}
