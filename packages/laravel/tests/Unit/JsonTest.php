<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Toolmark\Laravel\Json;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Mask;

class JsonTest extends TestCase
{
    public function test_empty_and_index_keyed_objects_are_written_back_as_they_came(): void
    {
        $json = '{"filters":{},"tags":[],"byRank":{"0":"gold","1":"silver"},"meta":{"a":{"b":{}}}}';
        $value = Json::decode($json);
        $this->assertIsArray($value);
        $this->assertSame('gold', $value['byRank']->{'0'});
        $this->assertSame($json, Llm::json($value));
        $this->assertSame('{}', Llm::json(Json::decode('{}')));
        $this->assertNull(Json::decode('not json'));
        $this->assertSame('{"n":null,"list":[null,1]}', Llm::json(Json::decode('{"n":1e400,"list":[-1e400,1]}')));
    }

    public function test_masking_keeps_such_objects_and_masks_inside_them(): void
    {
        $value = Json::decode('{"cards":{"0":"4242 4242 4242 4242"},"empty":{},"cvc":"123","list":[{}]}');
        $this->assertSame(
            '{"cards":{"0":"**** 4242"},"empty":{},"cvc":"[redacted]","list":[{}]}',
            Llm::json(Mask::value($value)),
        );
        $this->assertSame('{"cards":{"0":"[redacted]"},"empty":{}}', Llm::json(Mask::atPaths(Json::decode('{"cards":{"0":"x"},"empty":{}}'), ['cards.0'])));
        $this->assertSame(['4242'], Mask::secretsAt(Json::decode('{"cards":{"0":"4242"}}'), ['cards.0']));
        $this->assertSame(['0'], Mask::sensitivePathsOf(Json::decode('{"properties":{"0":{"writeOnly":true}}}')));
    }
}
