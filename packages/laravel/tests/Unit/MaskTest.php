<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Mask;

/** Mask against the secret corpus of @toolmark/protocol, which @toolmark/server's redact tests read too. */
final class MaskTest extends TestCase
{
    private const CORPUS = __DIR__.'/../../../protocol/src/__fixtures__/secrets/';

    private static function corpus(string $file): mixed
    {
        return json_decode((string) file_get_contents(self::CORPUS.$file), true, 512, JSON_THROW_ON_ERROR);
    }

    /** @return iterable<string, array{string, string}> */
    public static function texts(): iterable
    {
        foreach (self::corpus('text.json') as $case) {
            yield $case['name'] => [$case['in'], $case['out']];
        }
    }

    /** @return iterable<string, array{mixed, mixed}> */
    public static function values(): iterable
    {
        foreach (self::corpus('values.json') as $case) {
            yield $case['name'] => [$case['in'], $case['out']];
        }
    }

    /** @dataProvider texts */
    public function test_text_rules_match_the_corpus(string $in, string $out): void
    {
        $this->assertSame($out, Mask::text($in));
    }

    /** @dataProvider values */
    public function test_value_rules_match_the_corpus(mixed $in, mixed $out): void
    {
        $this->assertSame($out, Mask::value($in));
    }

    public function test_every_secret_key_and_no_plain_key_is_sensitive(): void
    {
        $keys = self::corpus('keys.json');
        $this->assertSame([], array_values(array_filter($keys['secret'], fn (string $k): bool => ! Mask::isSensitiveKey($k))));
        $this->assertSame([], array_values(array_filter($keys['plain'], fn (string $k): bool => Mask::isSensitiveKey($k))));
    }

    public function test_what_is_nested_too_deep_is_replaced_whole(): void
    {
        $deep = ['number' => '4242 4242 4242 4242'];
        for ($i = 0; $i < 100; $i++) {
            $deep = ['next' => $deep];
        }
        $text = json_encode(Mask::value($deep));
        $this->assertStringNotContainsString('4242 4242', $text);
        $this->assertStringContainsString('"[redacted]"', $text);
    }

    public function test_declared_paths_are_masked_collected_and_scrubbed(): void
    {
        $input = ['card' => ['number' => '4111 1111 1111 1111', 'code' => '123'], 'cards' => [['code' => '456'], []], 'name' => 'A'];
        $paths = ['card.code', 'cards[].code'];
        $this->assertSame(
            ['card' => ['number' => '4111 1111 1111 1111', 'code' => '[redacted]'], 'cards' => [['code' => '[redacted]'], []], 'name' => 'A'],
            Mask::atPaths($input, $paths),
        );
        $this->assertSame(['123', '456'], Mask::secretsAt($input, $paths));
        $this->assertSame('code [redacted] and [redacted]', Mask::scrub('code 123 and 456', ['123', '456']));
        $this->assertSame(['4111 1111 1111 1111', '**** 1111'], Mask::secretForms(['4111 1111 1111 1111']));
    }

    public function test_write_only_schema_properties_are_sensitive_paths(): void
    {
        $schema = ['type' => 'object', 'properties' => [
            'pin' => ['type' => 'string', 'writeOnly' => true],
            'cards' => ['type' => 'array', 'items' => ['type' => 'object', 'properties' => ['cvc' => ['type' => 'string', 'writeOnly' => true]]]],
            'name' => ['type' => 'string'],
        ]];
        $this->assertSame(['pin', 'cards[].cvc'], Mask::sensitivePathsOf($schema));
    }

    public function test_sensitive_paths_past_the_limits_make_the_whole_input_sensitive(): void
    {
        $max = Wire::SECRETS['maxSensitivePaths'];
        $writeOnly = fn (int $n): array => ['properties' => array_combine(
            array_map(fn (int $i): string => "k{$i}", range(0, $n - 1)),
            array_fill(0, $n, ['writeOnly' => true]),
        )];
        $this->assertCount($max, Mask::sensitivePathsOf($writeOnly($max)));
        $this->assertSame([''], Mask::sensitivePathsOf($writeOnly($max + 1)));
        $long = str_repeat('k', Wire::SECRETS['maxSensitivePathChars']);
        $this->assertSame([$long], Mask::sensitivePathsOf(['properties' => [$long => ['writeOnly' => true]]]));
        $this->assertSame([''], Mask::sensitivePathsOf(['properties' => ["{$long}k" => ['writeOnly' => true]]]));
        $this->assertSame(['pin'], Mask::sensitivePathsOf(['properties' => ["{$long}k" => ['type' => 'string'], 'pin' => ['writeOnly' => true]]]));
        $this->assertSame([''], Mask::sensitivePathsOf(['properties' => [str_repeat('k', 16400) => $writeOnly(40000)]]));

        $many = array_map(fn (int $i): string => "p{$i}", range(0, $max));
        $this->assertSame([''], Mask::declaredPaths(['sensitivePaths' => $many]));
        $this->assertCount($max, Mask::declaredPaths(['sensitivePaths' => array_slice($many, 1)]));
        $this->assertCount(256, Mask::joinPaths(array_slice($many, 0, 200), array_slice($many, 100, 156)));
        $this->assertSame([''], Mask::joinPaths(array_slice($many, 0, 200), array_slice($many, 200)));
        $this->assertSame('[redacted]', Mask::atPaths(['card' => '4242', 'name' => 'A'], ['']));
    }
}
