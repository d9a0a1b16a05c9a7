<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Toolmark\Laravel\Validator;

/**
 * The PHP validator against the message corpus of @toolmark/protocol (the one its own validator and
 * JSON Schemas are tested on): every page → agent fixture under accept/ passes, every one under
 * reject/ fails.
 */
final class ValidatorTest extends TestCase
{
    private const FIXTURES = __DIR__.'/../../../protocol/src/__fixtures__/';

    /** @return iterable<string, array{mixed}> */
    private static function fixtures(string $expected): iterable
    {
        $files = glob(self::FIXTURES."{$expected}/toAgent/*.json") ?: [];
        sort($files);
        foreach ($files as $file) {
            // Objects stay stdClass, so `{}` and `[]` stay apart (as JSON.parse keeps them).
            yield basename($file) => [json_decode((string) file_get_contents($file), false, 512, JSON_THROW_ON_ERROR)];
        }
    }

    /** @return iterable<string, array{mixed}> */
    public static function accepted(): iterable
    {
        return self::fixtures('accept');
    }

    /** @return iterable<string, array{mixed}> */
    public static function rejected(): iterable
    {
        return self::fixtures('reject');
    }

    /** @dataProvider accepted */
    public function test_accepts_every_accept_fixture(mixed $message): void
    {
        $this->assertNull(Validator::problem($message));
    }

    /** @dataProvider rejected */
    public function test_rejects_every_reject_fixture(mixed $message): void
    {
        $this->assertNotNull(Validator::problem($message));
    }

    /** @return iterable<string, array{mixed, bool}> */
    public static function extensionFixtures(): iterable
    {
        foreach (['accept', 'reject'] as $expected) {
            $files = glob(self::FIXTURES."extensions/{$expected}/toAgent/*.json") ?: [];
            sort($files);
            foreach ($files as $file) {
                yield "{$expected}/".basename($file) => [json_decode((string) file_get_contents($file), false, 512, JSON_THROW_ON_ERROR), $expected === 'accept'];
            }
        }
    }

    /** @dataProvider extensionFixtures */
    public function test_the_extension_messages_are_checked_as_the_protocol_package_checks_them(mixed $message, bool $valid): void
    {
        $this->assertSame($valid, Validator::extensionProblem($message) === null);
        $this->assertNotNull(Validator::problem($message), 'a plain v1 check rejects every extension message');
    }

    public function test_the_corpus_is_there(): void
    {
        $this->assertCount(32, iterator_to_array(self::accepted()));
        $this->assertCount(65, iterator_to_array(self::rejected()));
    }
}
